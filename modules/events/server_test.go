package events_test

import (
	"context"
	"encoding/json"
	"testing"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// server is the shared API client on a running Hearth, with the bus and
// transactions to publish with as other modules do.
type server struct {
	*apptest.Client
	bus ports.EventBus
	tx  ports.TxManager
}

func newServer(t *testing.T, opts ...apptest.Option) *server {
	t.Helper()
	s := &server{}
	s.Client = apptest.New(t, append(opts, apptest.With(fx.Populate(&s.bus, &s.tx)))...).Client(t)
	return s
}

// eachDriver runs fn against a fresh server on SQLite and on Postgres
// (skipped without a server unless CI is set), in parallel.
func eachDriver(t *testing.T, fn func(t *testing.T, s *server)) {
	t.Helper()
	for _, driver := range []string{"sqlite", "postgres"} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			fn(t, newServer(t, apptest.Driver(driver)))
		})
	}
}

// publishTx sends ev inside a transaction, as the modules do.
func (s *server) publishTx(ev domain.BusEvent) {
	s.T.Helper()
	if err := s.tx.WithinTx(context.Background(), func(ctx context.Context) error { return s.bus.Publish(ctx, ev) }); err != nil {
		s.T.Fatalf("publish %s: %v", ev.EventName(), err)
	}
}

// feedEvent is an event of the feed.
type feedEvent struct {
	ProjectID      *int64          `json:"project_id"`
	ActionName     string          `json:"action_name"`
	TargetID       *int64          `json:"target_id"`
	TargetType     *string         `json:"target_type"`
	TargetTitle    *string         `json:"target_title"`
	AuthorID       int64           `json:"author_id"`
	AuthorUsername string          `json:"author_username"`
	CreatedAt      string          `json:"created_at"`
	Data           json.RawMessage `json:"data"`
}

func (e feedEvent) action() string { return e.ActionName }

// feed reads a feed as token, expecting 200, into events of the caller's
// shape (feedEvent, or one embedding it with more fields).
func feed[E any](s *server, token, path string) []E {
	s.T.Helper()
	var out []E
	s.Expect(200, "GET", path, token, nil).Decode(s.T, &out)
	return out
}

// actionNames lists the events' action names in order.
func actionNames[E interface{ action() string }](evs []E) []string {
	out := []string{}
	for _, e := range evs {
		out = append(out, e.action())
	}
	return out
}
