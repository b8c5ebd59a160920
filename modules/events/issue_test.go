package events_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// trackerFixture is a server with the stores to seed issues, milestones
// and notes with, and users to read feeds as.
type trackerFixture struct {
	*server
	issues     ports.IssueStore
	milestones ports.MilestoneStore
	notes      ports.NoteStore
	project    int64 // public, root's
	other      int64 // another project, to set IDs apart from IIDs
	group      int64 // the group holding grouped
	grouped    int64 // a public project of group
	users      map[string]int64
	tokens     map[string]string
}

func newTrackerFixture(t *testing.T, s *server) *trackerFixture {
	t.Helper()
	store := s.Srv.Store
	f := &trackerFixture{server: s, issues: store.Issues(), milestones: store.Milestones(), notes: store.Notes(),
		users: map[string]int64{}, tokens: map[string]string{}}
	for _, name := range []string{"alice", "guest", "reporter", "groupie", "stranger"} {
		f.users[name], f.tokens[name] = s.User(name)
	}
	root := s.Srv.RootToken
	f.tokens["root"] = root
	project := func(name string, extra ...string) int64 {
		return apptest.ID(s.Project(root, append([]string{"name", name, "visibility", "public"}, extra...)...))
	}
	f.other = project("Other")
	f.project = project("Tracker")
	f.group = apptest.ID(s.Group(root, "name", "Team", "path", "team", "visibility", "public"))
	f.grouped = project("Grouped", "namespace_id", fmt.Sprint(f.group))
	s.AddMember("projects", f.project, f.users["guest"], 10)
	s.AddMember("projects", f.project, f.users["reporter"], 20)
	s.AddMember("groups", f.group, f.users["groupie"], 20)
	return f
}

func (f *trackerFixture) issue(t *testing.T, project int64, title string, confidential bool) domain.Issue {
	t.Helper()
	is := domain.Issue{ProjectID: project, Title: title, State: domain.IssueOpened, AuthorID: f.users["alice"], Confidential: confidential}
	if err := f.issues.Create(context.Background(), &is); err != nil {
		t.Fatalf("create issue: %v", err)
	}
	return is
}

// publish sends ev inside a transaction a second after the last one.
func (f *trackerFixture) publish(t *testing.T, ev domain.BusEvent) {
	t.Helper()
	f.Srv.Advance(time.Second)
	f.publishTx(ev)
}

// trackerEvent is an event of the feed, target_iid and note kept raw.
type trackerEvent struct {
	feedEvent
	TargetIID json.RawMessage `json:"target_iid"`
	Note      json.RawMessage `json:"note"`
}

func (f *trackerFixture) feed(t *testing.T, who, path string) []trackerEvent {
	t.Helper()
	return feed[trackerEvent](f.server, f.tokens[who], path)
}

// TestIssueAndMilestoneEventsRecorded: issue and milestone changes are
// feed events with GitLab's action names, targets and target_iid; edits
// record nothing.
func TestIssueAndMilestoneEventsRecorded(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		f := newTrackerFixture(t, s)
		f.issue(t, f.other, "Elsewhere", false)
		is := f.issue(t, f.project, "Crash on start", false)
		if is.ID == is.IID {
			t.Fatalf("issue ID %d = IID %d; the test needs them apart", is.ID, is.IID)
		}
		alice, reporter := f.users["alice"], f.users["reporter"]
		for _, step := range []struct {
			action string
			actor  int64
		}{{domain.ActionCreated, alice}, {domain.ActionUpdated, alice}, {domain.ActionClosed, reporter}, {domain.ActionReopened, alice}} {
			f.publish(t, domain.IssueEvent{Issue: is, Action: step.action, Actor: step.actor})
		}
		evs := f.feed(t, "", fmt.Sprintf("/projects/%d/events?target_type=issue", f.project))
		var names []string
		for _, e := range evs {
			names = append(names, e.ActionName)
			if e.TargetID == nil || *e.TargetID != is.ID || *e.TargetType != "Issue" || *e.TargetTitle != is.Title ||
				string(e.TargetIID) != fmt.Sprint(is.IID) || e.Note != nil {
				t.Errorf("issue event %+v target_iid %s note %s", e.feedEvent, e.TargetIID, e.Note)
			}
		}
		if diff := cmp.Diff([]string{"reopened", "closed", "opened"}, names); diff != "" {
			t.Errorf("issue events (-want +got):\n%s", diff)
		}
		if evs[1].AuthorID != reporter {
			t.Errorf("closed by %d, want the reporter %d", evs[1].AuthorID, reporter)
		}

		m := domain.Milestone{ProjectID: f.other, Title: "Elsewhere", State: domain.MilestoneActive}
		if err := f.milestones.Create(context.Background(), &m); err != nil {
			t.Fatal(err)
		}
		m = domain.Milestone{ProjectID: f.project, Title: "v1.0", State: domain.MilestoneActive}
		if err := f.milestones.Create(context.Background(), &m); err != nil {
			t.Fatal(err)
		}
		for _, action := range []string{domain.ActionCreated, domain.ActionUpdated, domain.ActionClosed, domain.ActionReopened} {
			f.publish(t, domain.MilestoneEvent{Milestone: m, Action: action, Actor: alice})
		}
		evs = f.feed(t, "", fmt.Sprintf("/projects/%d/events?target_type=milestone", f.project))
		names = nil
		for _, e := range evs {
			names = append(names, e.ActionName)
			if *e.TargetID != m.ID || *e.TargetType != "Milestone" || *e.TargetTitle != "v1.0" || string(e.TargetIID) != fmt.Sprint(m.IID) {
				t.Errorf("milestone event %+v target_iid %s", e.feedEvent, e.TargetIID)
			}
		}
		if diff := cmp.Diff([]string{"reopened", "closed", "opened"}, names); diff != "" {
			t.Errorf("milestone events (-want +got):\n%s", diff)
		}
		if err := f.milestones.Delete(context.Background(), f.project, m.ID); err != nil {
			t.Fatal(err)
		}
		f.publish(t, domain.MilestoneEvent{Milestone: m, Action: domain.ActionDestroyed, Actor: alice})
		evs = f.feed(t, "", fmt.Sprintf("/projects/%d/events?action=destroyed", f.project))
		if len(evs) != 1 || evs[0].ActionName != "destroyed" || string(evs[0].TargetIID) != "null" || *evs[0].TargetTitle != "v1.0" {
			t.Errorf("destroyed milestone events = %+v", evs)
		}

		// The project's last activity follows its events.
		var proj struct {
			LastActivityAt string `json:"last_activity_at"`
		}
		f.Expect(http.StatusOK, http.MethodGet, fmt.Sprintf("/projects/%d", f.project), f.Srv.RootToken, nil).Decode(t, &proj)
		if proj.LastActivityAt != evs[0].CreatedAt {
			t.Errorf("last_activity_at = %s, want the last event's %s", proj.LastActivityAt, evs[0].CreatedAt)
		}
	})
}

// TestNoteEventRecorded: a NoteEvent is "commented on" the note, titled
// after its noteable, with the note embedded; system notes record nothing.
func TestNoteEventRecorded(t *testing.T) {
	t.Parallel()
	f := newTrackerFixture(t, newServer(t))
	is := f.issue(t, f.project, "Needs a comment", false)
	alice := f.users["alice"]
	n := domain.Note{ProjectID: &f.project, NoteableType: domain.TargetIssue, NoteableID: is.ID, AuthorID: alice, Body: "On it"}
	if err := f.notes.Create(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	f.publish(t, domain.NoteEvent{Note: n, Actor: alice})
	sys := domain.Note{ProjectID: &f.project, NoteableType: domain.TargetIssue, NoteableID: is.ID, AuthorID: alice, Body: "closed", System: true}
	f.publish(t, domain.NoteEvent{Note: sys, Actor: alice})
	evs := f.feed(t, "", fmt.Sprintf("/projects/%d/events?target_type=note", f.project))
	if len(evs) != 1 {
		t.Fatalf("note events = %+v, want 1", evs)
	}
	e := evs[0]
	if e.ActionName != "commented on" || *e.TargetID != n.ID || *e.TargetType != "Note" || *e.TargetTitle != is.Title ||
		e.AuthorID != alice || string(e.TargetIID) != "null" {
		t.Errorf("note event = %+v target_iid %s", e.feedEvent, e.TargetIID)
	}
	var note struct {
		ID           int64           `json:"id"`
		Body         string          `json:"body"`
		Attachment   json.RawMessage `json:"attachment"`
		Author       struct{ Username string }
		System       bool   `json:"system"`
		NoteableID   int64  `json:"noteable_id"`
		NoteableType string `json:"noteable_type"`
		CreatedAt    string `json:"created_at"`
	}
	if err := json.Unmarshal(e.Note, &note); err != nil {
		t.Fatalf("note %s: %v", e.Note, err)
	}
	if note.ID != n.ID || note.Body != "On it" || string(note.Attachment) != "null" || note.Author.Username != "alice" ||
		note.System || note.NoteableID != is.ID || note.NoteableType != "Issue" || note.CreatedAt == "" {
		t.Errorf("embedded note = %s", e.Note)
	}
}

// TestConfidentialEventsHidden: events of confidential issues (and notes
// on them) show only to readers who may see the issue: admins, reporters
// of the project (directly or through its group) and the events' author.
// Every feed applies it.
func TestConfidentialEventsHidden(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		f := newTrackerFixture(t, s)
		alice := f.users["alice"]
		open := f.issue(t, f.project, "Open", false)
		secret := f.issue(t, f.project, "Secret", true)
		groupSecret := f.issue(t, f.grouped, "Group secret", true)
		f.publish(t, domain.IssueEvent{Issue: open, Action: domain.ActionCreated, Actor: alice})
		f.publish(t, domain.IssueEvent{Issue: secret, Action: domain.ActionCreated, Actor: alice})
		f.publish(t, domain.IssueEvent{Issue: groupSecret, Action: domain.ActionCreated, Actor: alice})
		n := domain.Note{ProjectID: &f.project, NoteableType: domain.TargetIssue, NoteableID: secret.ID, AuthorID: alice, Body: "psst"}
		if err := f.notes.Create(context.Background(), &n); err != nil {
			t.Fatal(err)
		}
		f.publish(t, domain.NoteEvent{Note: n, Actor: alice, Confidential: true})

		titles := func(evs []trackerEvent) []string {
			out := []string{}
			for _, e := range evs {
				if e.TargetTitle != nil && e.TargetType != nil && (*e.TargetType == "Issue" || *e.TargetType == "Note") {
					out = append(out, e.ActionName+" "+*e.TargetTitle)
				}
			}
			slices.Sort(out)
			return out
		}
		everything := []string{"commented on Secret", "opened Group secret", "opened Open", "opened Secret"}
		publicOnly := []string{"opened Open"}
		feeds := map[string]string{
			"user":   fmt.Sprintf("/users/%d/events", alice),
			"own":    "/events",
			"groupd": fmt.Sprintf("/projects/%d/events", f.grouped),
		}
		for _, c := range []struct {
			who  string
			want []string
		}{
			{"", publicOnly},
			{"stranger", publicOnly},
			{"guest", publicOnly},
			{"reporter", []string{"commented on Secret", "opened Open", "opened Secret"}},
			{"groupie", []string{"opened Group secret", "opened Open"}},
			{"root", everything},
			{"alice", everything}, // the events' author
		} {
			if got := titles(f.feed(t, c.who, feeds["user"])); !cmp.Equal(got, c.want) {
				t.Errorf("alice's feed as %q = %v, want %v", c.who, got, c.want)
			}
		}
		if got := titles(f.feed(t, "alice", feeds["own"])); !cmp.Equal(got, everything) {
			t.Errorf("alice's own feed = %v, want %v", got, everything)
		}
		if got := titles(f.feed(t, "groupie", fmt.Sprintf("/projects/%d/events", f.project))); !cmp.Equal(got, publicOnly) {
			t.Errorf("project feed as a reporter of another group = %v", got)
		}
		if got := titles(f.feed(t, "guest", feeds["groupd"])); len(got) != 0 {
			t.Errorf("grouped project's feed as a guest elsewhere = %v, want nothing", got)
		}
		if got := titles(f.feed(t, "groupie", feeds["groupd"])); !cmp.Equal(got, []string{"opened Group secret"}) {
			t.Errorf("grouped project's feed as its group's reporter = %v", got)
		}
		// Totals count what the reader may see.
		resp := f.Expect(http.StatusOK, http.MethodGet, feeds["user"]+"?target_type=issue", "", nil)
		if got := resp.Header.Get("X-Total"); got != "1" {
			t.Errorf("X-Total for anonymous = %s, want 1", got)
		}

		// An issue made confidential later hides the events recorded
		// while it was public, its notes' included.
		later := f.issue(t, f.project, "Later", false)
		f.publish(t, domain.IssueEvent{Issue: later, Action: domain.ActionCreated, Actor: alice})
		ln := domain.Note{ProjectID: &f.project, NoteableType: domain.TargetIssue, NoteableID: later.ID, AuthorID: alice, Body: "hm"}
		if err := f.notes.Create(context.Background(), &ln); err != nil {
			t.Fatal(err)
		}
		f.publish(t, domain.NoteEvent{Note: ln, Actor: alice})
		project := fmt.Sprintf("/projects/%d/events", f.project)
		if got := titles(f.feed(t, "guest", project)); !cmp.Equal(got, []string{"commented on Later", "opened Later", "opened Open"}) {
			t.Errorf("guest's feed while the issue is public = %v", got)
		}
		if _, err := f.issues.Update(context.Background(), f.project, later.IID, func(is *domain.Issue) error {
			is.Confidential = true
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if got := titles(f.feed(t, "guest", project)); !cmp.Equal(got, publicOnly) {
			t.Errorf("guest's feed once the issue is confidential = %v, want %v", got, publicOnly)
		}
		if got := titles(f.feed(t, "reporter", project)); !slices.Contains(got, "commented on Later") {
			t.Errorf("reporter's feed lost the confidential issue's events: %v", got)
		}
	})
}
