package events_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// mrFixture is a server with alice, bob, a public project of alice's and
// the merge request store to publish with.
type mrFixture struct {
	*server
	mrs        ports.MergeRequestStore
	alice, bob int64
	root       int64
	project    int64
	elsewhere  int64 // another project, whose merge requests shift IDs away from IIDs
	seq        int
}

func newMRFixture(t *testing.T, s *server) *mrFixture {
	t.Helper()
	f := &mrFixture{server: s, mrs: s.Srv.Store.MergeRequests()}
	f.alice, _ = s.User("alice")
	f.bob, _ = s.User("bob")
	root, err := s.Srv.Users.UserByLogin(context.Background(), "root")
	if err != nil {
		t.Fatalf("root: %v", err)
	}
	f.root = root.ID
	f.project = apptest.ID(s.Expect(http.StatusCreated, http.MethodPost, fmt.Sprintf("/projects/user/%d", f.alice), s.Srv.RootToken,
		map[string]any{"name": "Demo", "visibility": "public"}).Object(t))
	f.elsewhere = apptest.ID(s.Project(s.Srv.RootToken, "name", "Elsewhere"))
	return f
}

// mergeRequest stores an open merge request by alice in a project.
func (f *mrFixture) mergeRequest(t *testing.T, project int64, title string) domain.MergeRequest {
	t.Helper()
	f.seq++
	m := domain.MergeRequest{ProjectID: project, SourceProjectID: project, TargetProjectID: project, Title: title,
		State: domain.MROpened, SourceBranch: fmt.Sprintf("feature-%d", f.seq), TargetBranch: "master", AuthorID: f.alice,
		MergeStatus: domain.MergeCanBeMerged, SourceSHA: strings.Repeat("a", 40), TargetSHA: strings.Repeat("b", 40),
		BaseSHA: strings.Repeat("b", 40)}
	if err := f.mrs.Create(context.Background(), &m); err != nil {
		t.Fatalf("create merge request: %v", err)
	}
	return m
}

// publish sends a merge request event inside a transaction, as the merge
// request module does; fail makes the transaction roll back afterwards.
func (f *mrFixture) publish(t *testing.T, m domain.MergeRequest, action string, actor int64, fail bool) {
	t.Helper()
	boom := errors.New("boom")
	err := f.tx.WithinTx(context.Background(), func(ctx context.Context) error {
		if err := f.bus.Publish(ctx, domain.MergeRequestEvent{MergeRequest: m, Action: action, Actor: actor}); err != nil {
			return err
		}
		if fail {
			return boom
		}
		return nil
	})
	if (fail && !errors.Is(err, boom)) || (!fail && err != nil) {
		t.Fatalf("publish %s of !%d: %v", action, m.IID, err)
	}
}

// mrEvent is an event as the feed renders it, with target_iid raw so that
// null and absent differ.
type mrEvent struct {
	feedEvent
	TargetIID json.RawMessage `json:"target_iid"`
}

func (f *mrFixture) events(t *testing.T, query string) []mrEvent {
	t.Helper()
	return feed[mrEvent](f.server, f.Srv.RootToken, fmt.Sprintf("/projects/%d/events?%s", f.project, query))
}

// TestMergeRequestEventsRecorded publishes a merge request's life and
// reads it back from the project's feed with GitLab's action names,
// target fields and target_iid; edits and rolled-back changes leave no
// event, and the project's last activity follows the last event.
func TestMergeRequestEventsRecorded(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		f := newMRFixture(t, s)
		// IIDs count per project, IDs globally: one elsewhere first
		// makes them differ, so the test tells them apart.
		f.mergeRequest(t, f.elsewhere, "Elsewhere")
		m := f.mergeRequest(t, f.project, "Add the feature")
		other := f.mergeRequest(t, f.project, "Rolled back")
		if m.IID == m.ID {
			t.Fatalf("merge request ID %d = IID %d; the test needs them apart", m.ID, m.IID)
		}
		steps := []struct {
			action string
			actor  int64
		}{
			{domain.ActionCreated, f.alice},
			{domain.ActionUpdated, f.alice},
			{domain.ActionClosed, f.bob},
			{domain.ActionReopened, f.alice},
			{domain.ActionMerged, f.root},
		}
		for _, s := range steps {
			f.Srv.Advance(time.Minute)
			f.publish(t, m, s.action, s.actor, false)
		}
		f.Srv.Advance(time.Minute)
		f.publish(t, other, domain.ActionClosed, f.bob, true) // rolled back

		evs := f.events(t, "target_type=merge_request")
		if diff := cmp.Diff([]string{"accepted", "reopened", "closed", "opened"}, actionNames(evs)); diff != "" {
			t.Fatalf("target_type=merge_request (-want +got):\n%s", diff)
		}
		wantAuthors := []int64{f.root, f.alice, f.bob, f.alice}
		for i, e := range evs {
			if e.TargetID == nil || *e.TargetID != m.ID || e.TargetType == nil || *e.TargetType != "MergeRequest" ||
				e.TargetTitle == nil || *e.TargetTitle != m.Title || e.ProjectID == nil || *e.ProjectID != f.project ||
				e.AuthorID != wantAuthors[i] || string(e.TargetIID) != fmt.Sprint(m.IID) {
				t.Errorf("event %d = %+v (target_iid %s); want merge request %d (!%d) %q by user %d",
					i, e.feedEvent, e.TargetIID, m.ID, m.IID, m.Title, wantAuthors[i])
			}
		}

		merged := f.events(t, "action=merged")
		if len(merged) != 1 || merged[0].ActionName != "accepted" || merged[0].AuthorID != f.root {
			t.Errorf("action=merged = %+v, want root's accepted event", merged)
		}
		if got := f.events(t, "action=updated&target_type=merge_request"); len(got) != 0 {
			t.Errorf("an edit was recorded: %+v", got)
		}
		if got := f.events(t, "action=closed"); len(got) != 1 {
			t.Errorf("action=closed has %d events, want 1 (the rolled-back close is not recorded)", len(got))
		}
		// Targets without an IID render target_iid null.
		for _, e := range f.events(t, "target_type=project") {
			if string(e.TargetIID) != "null" {
				t.Errorf("project event %+v: target_iid %s, want null", e.feedEvent, e.TargetIID)
			}
		}
		created := f.events(t, "action=created")
		if len(created) < 2 || created[0].ActionName != "opened" || created[len(created)-1].ActionName != "created" {
			t.Errorf("action=created = %v, want the opened merge request then the created project", actionNames(created))
		}

		// The project's last activity is the merge, the last event.
		var proj struct {
			LastActivityAt string `json:"last_activity_at"`
		}
		f.Expect(http.StatusOK, http.MethodGet, fmt.Sprintf("/projects/%d", f.project), f.Srv.RootToken, nil).Decode(t, &proj)
		if proj.LastActivityAt != evs[0].CreatedAt {
			t.Errorf("last_activity_at = %s, want the merge event's %s", proj.LastActivityAt, evs[0].CreatedAt)
		}

		// A deleted merge request keeps its events, without an IID.
		if err := f.mrs.Delete(context.Background(), f.project, m.IID); err != nil {
			t.Fatalf("delete merge request: %v", err)
		}
		for _, e := range f.events(t, "target_type=merge_request") {
			if string(e.TargetIID) != "null" || e.TargetID == nil || *e.TargetID != m.ID {
				t.Errorf("event of the deleted merge request: %+v target_iid %s", e.feedEvent, e.TargetIID)
			}
		}
	})
}
