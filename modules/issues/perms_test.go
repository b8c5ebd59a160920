package issues_test

import (
	"fmt"
	"testing"
)

// TestTrackerDisabled: with issues_enabled off every issue route is the
// project's 404, for members and administrators alike.
func TestTrackerDisabled(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("off", "public")
	dev := s.person("dev")
	s.member(pid, dev, developer)
	s.create(dev.token, pid, "Before")
	var ms milestoneJSON
	s.JSON(t, "POST", fmt.Sprintf("/projects/%d/milestones", pid), dev.token, form("title", "v1"), 201, &ms)
	s.JSON(t, "PUT", fmt.Sprintf("/projects/%d", pid), s.RootToken, form("issues_enabled", "false"), 200, nil)

	for _, token := range []string{dev.token, s.RootToken, ""} {
		for _, c := range []struct{ method, path string }{
			{"GET", issuesPath(pid)},
			{"GET", issuePath(pid, 1, "")},
			{"POST", issuesPath(pid)},
			{"PUT", issuePath(pid, 1, "")},
			{"DELETE", issuePath(pid, 1, "")},
			{"POST", issuePath(pid, 1, "/subscribe")},
			{"POST", issuePath(pid, 1, "/unsubscribe")},
			{"POST", issuePath(pid, 1, "/todo")},
		} {
			want := projectNotFound
			status := 404
			if token == "" && c.method != "GET" {
				want, status = unauthorized, 401
			}
			s.ExpectBody(status, want, c.method, c.path, token, form("title", "x"))
		}
	}
	if list, _ := s.list(dev.token, "/issues?scope=all"); len(list) != 0 {
		t.Errorf("GET /issues shows a disabled tracker: %v", iids(list))
	}
	// Milestones stay (merge requests use them); their issue list is empty.
	if list, _ := s.list(dev.token, fmt.Sprintf("/projects/%d/milestones/%d/issues", pid, ms.ID)); len(list) != 0 {
		t.Errorf("milestone issues with the tracker off: %v", iids(list))
	}
	var p struct {
		OpenIssuesCount int `json:"open_issues_count"`
	}
	s.JSON(t, "GET", fmt.Sprintf("/projects/%d", pid), dev.token, nil, 200, &p)
	if p.OpenIssuesCount != 0 {
		t.Errorf("open_issues_count with the tracker off: %d", p.OpenIssuesCount)
	}
}

// TestPermissions: who may read, create, update and delete issues.
func TestPermissions(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	priv := s.project("private", "private")
	pub := s.project("public", "public")
	internal := s.project("internal", "internal")
	dev, gst, gst2, outsider := s.person("dev"), s.person("gst"), s.person("gst2"), s.person("outsider")
	ext := s.person("ext", "external", "true")
	s.member(priv, dev, developer)
	s.member(priv, gst, guest)
	s.member(priv, gst2, guest)
	body := form("title", "T")

	// Anonymous: reads public trackers, never writes.
	s.create(dev.token, priv, "Private")
	s.create(outsider.token, pub, "Public")
	s.ExpectBody(401, unauthorized, "POST", issuesPath(pub), "", body)
	s.ExpectBody(401, unauthorized, "PUT", issuePath(pub, 1, ""), "", body)
	s.ExpectBody(401, unauthorized, "POST", issuePath(pub, 1, "/subscribe"), "", nil)
	s.ExpectBody(401, unauthorized, "POST", issuePath(pub, 1, "/todo"), "", nil)
	if got := s.get("", pub, 1); got.Title != "Public" {
		t.Errorf("anonymous read of a public issue: %s", got.Raw)
	}
	s.ExpectBody(404, projectNotFound, "GET", issuesPath(priv), "", nil)
	s.ExpectBody(404, projectNotFound, "GET", issuePath(priv, 1, ""), outsider.token, nil)
	s.ExpectBody(404, projectNotFound, "POST", issuesPath(priv), outsider.token, body)

	// Guests of a private project read and create.
	if got := s.get(gst.token, priv, 1); got.Title != "Private" {
		t.Errorf("guest read: %s", got.Raw)
	}
	s.create(gst.token, priv, "By a guest")
	// Signed-in users who are not external create in public and internal projects.
	s.create(outsider.token, internal, "Internal")
	s.ExpectBody(403, forbidden, "POST", issuesPath(pub), ext.token, body)
	if got := s.get(ext.token, pub, 1); got.Title != "Public" {
		t.Errorf("external user's read of a public issue: %s", got.Raw)
	}
	s.ExpectBody(404, projectNotFound, "GET", issuesPath(internal), ext.token, nil)

	// Update: the author or a reporter; delete: owners.
	s.ExpectBody(403, forbidden, "PUT", issuePath(priv, 1, ""), gst.token, form("title", "Mine now"))
	s.ExpectBody(403, forbidden, "PUT", issuePath(priv, 2, ""), gst2.token, form("state_event", "close"))
	s.update(gst.token, priv, 2, "state_event", "close")
	s.ExpectBody(403, forbidden, "PUT", issuePath(pub, 1, ""), ext.token, form("title", "x"))
	s.update(outsider.token, pub, 1, "title", "Public, edited by its author")
	s.ExpectBody(403, forbidden, "DELETE", issuePath(priv, 1, ""), dev.token, nil)
	// The assignee may edit the issue too (GitLab's IssuePolicy).
	s.update(dev.token, priv, 2, "assignee_id", fmt.Sprint(gst2.id))
	s.update(gst2.token, priv, 2, "title", "Edited by its assignee")

	// An archived project takes no writes.
	s.JSON(t, "POST", fmt.Sprintf("/projects/%d/archive", priv), s.RootToken, nil, 201, nil)
	s.ExpectBody(403, forbidden, "POST", issuesPath(priv), dev.token, body)
	s.ExpectBody(403, forbidden, "PUT", issuePath(priv, 1, ""), dev.token, body)
	if got := s.get(gst.token, priv, 1); got.Title != "Private" {
		t.Errorf("archived read: %s", got.Raw)
	}
}
