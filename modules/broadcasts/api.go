package broadcasts

import (
	"time"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// MessageID is the {id} of a route; Invalid (a 400 "id is invalid") is
// reported after the access checks.
type MessageID struct {
	ID      int64
	Invalid error
}

// Input is the parameters of POST and PUT /broadcast_messages. On POST
// message is required, starts_at defaults to now and ends_at to an hour
// later; PUT changes what it is given.
type Input struct {
	Message  *string    `param:"message"`
	StartsAt *time.Time `param:"starts_at"`
	EndsAt   *time.Time `param:"ends_at"`
	Color    *string    `param:"color"`
	Font     *string    `param:"font"`
	// BlankStartsAt and BlankEndsAt record a time given empty (or JSON
	// null): Grape reads it as nil, which POST replaces with the default
	// and PUT saves, failing the model's presence check.
	BlankStartsAt bool `param:"-"`
	BlankEndsAt   bool `param:"-"`
	// Invalid is the request's own problem (a missing message, a
	// malformed time), reported after the access checks.
	Invalid error `param:"-"`
}

// Listed is one page of messages and the total.
type Listed struct {
	Messages []domain.BroadcastMessage
	Total    int
}

// messageJSON is GitLab 9.x's Entities::BroadcastMessage.
type messageJSON struct {
	ID       int64      `json:"id"`
	Message  string     `json:"message"`
	StartsAt httpx.Time `json:"starts_at"`
	EndsAt   httpx.Time `json:"ends_at"`
	Color    string     `json:"color"`
	Font     string     `json:"font"`
	Active   bool       `json:"active"`
}

// messageOf renders m as seen at now (active).
func messageOf(m *domain.BroadcastMessage, now time.Time) messageJSON {
	return messageJSON{ID: m.ID, Message: m.Message, StartsAt: httpx.TimeOf(m.StartsAt), EndsAt: httpx.TimeOf(m.EndsAt),
		Color: m.Color, Font: m.Font, Active: m.Active(now)}
}

func messagesOf(ms []domain.BroadcastMessage, now time.Time) []messageJSON {
	out := make([]messageJSON, 0, len(ms))
	for i := range ms {
		out = append(out, messageOf(&ms[i], now))
	}
	return out
}
