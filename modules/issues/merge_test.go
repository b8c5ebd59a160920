package issues_test

import (
	"fmt"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

// TestMergeClosesIssues: merging a merge request whose description says
// "Closes #1" closes the open issues it names that the merging user may
// update, each with a "closed via merge request" note and a closed
// event, in this project and in others. SQLite and Postgres.
func TestMergeClosesIssues(t *testing.T) {
	t.Parallel()
	for _, v := range []struct {
		name string
		opts []apptest.Option
	}{{"sqlite", nil}, {"postgres", []apptest.Option{apptest.Postgres()}}} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			testMergeClosesIssues(t, newServer(t, v.opts...))
		})
	}
}

func testMergeClosesIssues(t *testing.T, s *server) {
	pid := s.project("closing", "private")
	shared := s.project("shared", "private")
	foreign := s.project("foreign", "private")
	dev, gst := s.person("dev"), s.person("gst")
	s.member(pid, dev, developer)
	s.member(pid, gst, guest)
	s.member(shared, dev, reporter)
	s.member(foreign, dev, guest)
	s.branches(pid)

	one := s.create(gst.token, pid, "Open one")
	two := s.create(gst.token, pid, "Already closed")
	three := s.create(dev.token, pid, "Secret one", "confidential", "true")
	s.create(gst.token, pid, "Not named")
	s.update(dev.token, pid, 2, "state_event", "close")
	sharedIssue := s.create(s.RootToken, shared, "Shared")
	s.create(s.RootToken, foreign, "Foreign")
	s.takeEvents()

	var mr struct {
		IID   int64  `json:"iid"`
		State string `json:"state"`
	}
	s.JSON(t, "POST", fmt.Sprintf("/projects/%d/merge_requests", pid), dev.token, form("source_branch", "feature",
		"target_branch", "master", "title", "Fix everything",
		"description", "Closes #1, #2, #3 and #9, fixes root/shared#1 and root/foreign#1"), 201, &mr)
	if got := s.takeEvents(); len(got) != 0 {
		t.Fatalf("opening the merge request touched issues: %v", got)
	}
	s.JSON(t, "PUT", fmt.Sprintf("/projects/%d/merge_requests/%d/merge", pid, mr.IID), dev.token, nil, 200, &mr)
	if mr.State != "merged" {
		t.Fatalf("merge: %+v", mr)
	}

	for _, c := range []struct {
		project, iid int64
		want         string
	}{{pid, 1, "closed"}, {pid, 2, "closed"}, {pid, 3, "closed"}, {pid, 4, "opened"}, {shared, 1, "closed"}, {foreign, 1, "opened"}} {
		got := s.get(s.RootToken, c.project, c.iid)
		if got.State != c.want || (c.want == "closed") != (got.ClosedAt != nil) {
			t.Errorf("project %d issue %d: state %s closed_at %s, want %s", c.project, c.iid, got.State, str(got.ClosedAt), c.want)
		}
	}
	d := fmt.Sprint(dev.id) + ": "
	for _, c := range []struct {
		id   int64
		want string
	}{
		{one.ID, d + "closed via merge request !1"},
		{two.ID, d + "closed"},
		{three.ID, d + "closed via merge request !1"},
		{sharedIssue.ID, d + "closed via merge request root/closing!1"},
	} {
		if got := join(s.systemNotes(c.id)); got != c.want {
			t.Errorf("notes of issue %d: %s, want %s", c.id, got, c.want)
		}
	}
	want := fmt.Sprintf("issue 1 closed by %[1]d,issue 3 closed by %[1]d,issue 1 closed by %[1]d", dev.id)
	if got := join(s.takeEvents()); got != want {
		t.Errorf("events %s, want %s", got, want)
	}
}
