package issues_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

// TestStatesNotesAndEvents walks opened -> closed -> reopened -> closed on
// both storage drivers, with the system notes each edit leaves and the
// events published.
func TestStatesNotesAndEvents(t *testing.T) {
	t.Parallel()
	for _, v := range []struct {
		name string
		opts []apptest.Option
	}{{"sqlite", nil}, {"postgres", []apptest.Option{apptest.Postgres()}}} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			testStates(t, newServer(t, v.opts...))
		})
	}
}

func testStates(t *testing.T, s *server) {
	pid := s.project("states", "private")
	dev, rep, gst := s.person("dev"), s.person("rep"), s.person("gst")
	s.member(pid, dev, developer)
	s.member(pid, rep, reporter)
	s.member(pid, gst, guest)
	var ms milestoneJSON
	s.JSON(t, "POST", fmt.Sprintf("/projects/%d/milestones", pid), dev.token, form("title", "v1"), 201, &ms)
	is := s.create(gst.token, pid, "Broken")
	s.takeEvents()

	closed := s.update(rep.token, pid, 1, "state_event", "close")
	if closed.State != "closed" || closed.ClosedAt == nil {
		t.Fatalf("close: %s", closed.Raw)
	}
	if again := s.update(rep.token, pid, 1, "state_event", "close"); again.State != "closed" || str(again.ClosedAt) != str(closed.ClosedAt) {
		t.Fatalf("repeat close: %s", again.Raw)
	}
	if got := s.get(gst.token, pid, 1); got.State != "closed" {
		t.Fatalf("get after close: %s", got.Raw)
	}
	reopened := s.update(gst.token, pid, 1, "state_event", "reopen") // the author may reopen
	if reopened.State != "reopened" || reopened.ClosedAt != nil {
		t.Fatalf("reopen: %s", reopened.Raw)
	}
	if again := s.update(gst.token, pid, 1, "state_event", "reopen"); again.State != "reopened" {
		t.Fatalf("repeat reopen: %s", again.Raw)
	}
	want := []string{
		fmt.Sprintf("issue 1 closed by %d", rep.id),
		fmt.Sprintf("issue 1 reopened by %d", gst.id),
	}
	if got := s.takeEvents(); join(got) != join(want) {
		t.Errorf("events %v, want %v", got, want)
	}

	s.update(rep.token, pid, 1, "title", "Really broken", "description", "steps", "assignee_id", fmt.Sprint(dev.id),
		"milestone_id", fmt.Sprint(ms.ID), "labels", "b,a", "confidential", "true", "due_date", "2017-06-01")
	s.update(rep.token, pid, 1, "assignee_id", "0", "milestone_id", "0", "labels", "a,c", "confidential", "false",
		"due_date", "", "state_event", "close")
	s.update(rep.token, pid, 1, "labels", "")
	// Edits publish "updated" (webhooks send them; the feed records none),
	// an edit that also closes publishes the close.
	wantEdits := []string{
		fmt.Sprintf("issue 1 updated by %d", rep.id),
		fmt.Sprintf("issue 1 closed by %d", rep.id),
		fmt.Sprintf("issue 1 updated by %d", rep.id),
	}
	if got := s.takeEvents(); join(got) != join(wantEdits) {
		t.Errorf("events of edits %v, want %v", got, wantEdits)
	}

	bodies := s.systemNotes(is.ID)
	r, g := fmt.Sprint(rep.id)+": ", fmt.Sprint(gst.id)+": "
	wantNotes := []string{
		r + "closed",
		g + "reopened",
	}
	for _, n := range []string{
		"changed title from **Broken** to **Really broken**",
		"changed the description",
		"assigned to @dev",
		fmt.Sprintf("changed milestone to %%%d", ms.IID),
		"made the issue confidential",
		`added ~"a" ~"b" labels`,
		"changed due date to June  1, 2017",
		"closed",
		"removed assignee",
		"removed milestone",
		"made the issue visible to everyone",
		`added ~"c" label and removed ~"b" label`,
		"removed due date",
		`removed ~"a" ~"c" labels`,
	} {
		wantNotes = append(wantNotes, r+n)
	}
	if strings.Join(bodies, "\n") != strings.Join(wantNotes, "\n") {
		t.Errorf("system notes:\n%s\nwant:\n%s", strings.Join(bodies, "\n"), strings.Join(wantNotes, "\n"))
	}
	if got := s.get(rep.token, pid, 1); got.UserNotesCount != 0 {
		t.Errorf("user_notes_count counts system notes: %d", got.UserNotesCount)
	}

	// Filters see reopened issues as opened.
	s.create(gst.token, pid, "Second")
	s.update(rep.token, pid, 1, "state_event", "reopen")
	if got := join(s.listIIDs(rep.token, issuesPath(pid)+"?state=opened")); got != "2,1" {
		t.Errorf("state=opened: %s", got)
	}
}
