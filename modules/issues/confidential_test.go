package issues_test

import (
	"fmt"
	"testing"
)

// TestConfidentialVisibility: a confidential issue shows to reporters and
// up, its author, its assignee and administrators, on every read: get,
// the project's list, GET /issues, label counts and the project's
// open_issues_count. Everyone else gets the issue's 404.
func TestConfidentialVisibility(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("secrets", "public")
	author, gst, rep, rep2 := s.person("author"), s.person("gst"), s.person("rep"), s.person("rep2")
	assignee, outsider := s.person("assignee"), s.person("outsider")
	s.member(pid, author, guest)
	s.member(pid, gst, guest)
	s.member(pid, rep, reporter)
	s.member(pid, rep2, reporter)

	s.create(author.token, pid, "Secret", "labels", "sec")
	s.create(outsider.token, pid, "Plain")
	// Only reporters may make an issue confidential; then the author
	// (a guest) still sees it, and so does an assignee from outside.
	if got := s.update(rep.token, pid, 1, "confidential", "true", "labels", "sec", "assignee_id", fmt.Sprint(assignee.id),
		"description", "cc @gst @rep2"); !got.Confidential || got.Assignee == nil {
		t.Fatalf("make confidential: %s", got.Raw)
	}

	type viewer struct {
		name  string
		token string
		sees  bool
	}
	viewers := []viewer{
		{"anonymous", "", false}, {"outsider", outsider.token, false}, {"guest", gst.token, false},
		{"author", author.token, true}, {"assignee", assignee.token, true}, {"reporter", rep.token, true},
		{"admin", s.RootToken, true},
	}
	for _, v := range viewers {
		if v.sees {
			if got := s.get(v.token, pid, 1); got.Title != "Secret" || !got.Confidential {
				t.Errorf("%s: get %s", v.name, got.Raw)
			}
		} else {
			s.ExpectBody(404, issueNotFound, "GET", issuePath(pid, 1, ""), v.token, nil)
		}
		want, count, open := "2", 1, 1
		if v.sees {
			want, count, open = "2,1", 2, 2
		}
		if got := join(s.listIIDs(v.token, issuesPath(pid))); got != want {
			t.Errorf("%s: list %s, want %s", v.name, got, want)
		}
		var p struct {
			OpenIssuesCount int `json:"open_issues_count"`
		}
		s.JSON(t, "GET", fmt.Sprintf("/projects/%d", pid), v.token, nil, 200, &p)
		if p.OpenIssuesCount != open {
			t.Errorf("%s: open_issues_count %d, want %d", v.name, p.OpenIssuesCount, open)
		}
		var labels []struct {
			Name            string
			OpenIssuesCount int `json:"open_issues_count"`
		}
		s.JSON(t, "GET", fmt.Sprintf("/projects/%d/labels", pid), v.token, nil, 200, &labels)
		if len(labels) != 1 || labels[0].OpenIssuesCount != count-1 {
			t.Errorf("%s: label counts %+v, want %d open", v.name, labels, count-1)
		}
		if v.token == "" {
			continue
		}
		list, _ := s.list(v.token, "/issues?scope=all")
		if got := join(iids(list)); got != want {
			t.Errorf("%s: GET /issues?scope=all %s, want %s", v.name, got, want)
		}
	}

	// Hidden means hidden on every route.
	for _, suffix := range []string{"/subscribe", "/unsubscribe", "/todo"} {
		s.ExpectBody(404, issueNotFound, "POST", issuePath(pid, 1, suffix), gst.token, nil)
	}
	s.ExpectBody(404, issueNotFound, "PUT", issuePath(pid, 1, ""), gst.token, form("title", "x"))
	s.ExpectBody(404, issueNotFound, "PUT", issuePath(pid, 1, ""), outsider.token, form("title", "x"))

	// Mentions reach only those who may see the issue.
	todosOf := func(p person) int {
		var todos []any
		s.JSON(t, "GET", "/todos?action=mentioned", p.token, nil, 200, &todos)
		return len(todos)
	}
	if todosOf(gst) != 0 || todosOf(rep2) != 1 {
		t.Errorf("mention todos: guest %d, reporter %d; want 0 and 1", todosOf(gst), todosOf(rep2))
	}

	// Back to visible: everyone sees it again.
	s.update(rep.token, pid, 1, "confidential", "false")
	if got := s.get("", pid, 1); got.Confidential {
		t.Errorf("visible again: %s", got.Raw)
	}
}
