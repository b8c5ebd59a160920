package contracttests

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The merge requests part of the API suite: one compact workflow.

// apiCommit writes a commit through the API and returns its SHA.
func apiCommit(c apiClient, pid int64, branch, start, path, content string) string {
	c.t.Helper()
	body := map[string]any{"branch": branch, "commit_message": "Write " + path,
		"actions": []map[string]string{{"action": "create", "file_path": path, "content": content}}}
	if start != "" {
		body["start_branch"] = start
	}
	sha, _ := c.expect(201, "POST", fmt.Sprintf("/projects/%d/repository/commits", pid), c.srv.RootToken, body).object(c.t)["id"].(string)
	if len(sha) != 40 {
		c.t.Fatalf("commit on %s: id %q", branch, sha)
	}
	return sha
}

func apiMergeRequests(t *testing.T, c apiClient, _ func(time.Duration)) {
	devID, dev := newUser(c, "mira")
	_, outsider := newUser(c, "nils")
	p := c.expect(201, "POST", "/projects", c.srv.RootToken, form("name", "shop", "visibility", "private")).object(t)
	pid := int64(p["id"].(float64))
	c.expect(201, "POST", fmt.Sprintf("/projects/%d/members", pid), c.srv.RootToken, form("user_id", fmt.Sprint(devID), "access_level", "30"))
	apiCommit(c, pid, "master", "", "README.md", "hello\n")
	head := apiCommit(c, pid, "feature", "master", "feature.txt", "f\n")
	apiCommit(c, pid, "other", "master", "other.txt", "o\n")
	base := fmt.Sprintf("/projects/%d/merge_requests", pid)

	// Create, with GitLab's validation.
	mr := c.expect(201, "POST", base, dev, form("source_branch", "feature", "target_branch", "master",
		"title", "Add feature", "labels", "b, a,a")).object(t)
	wantKeys(t, mr, "id", "iid", "project_id", "title", "description", "state", "created_at", "updated_at",
		"target_branch", "source_branch", "upvotes", "downvotes", "author", "assignee", "source_project_id",
		"target_project_id", "labels", "work_in_progress", "milestone", "merge_when_pipeline_succeeds",
		"merge_status", "subscribed", "sha", "merge_commit_sha", "user_notes_count",
		"should_remove_source_branch", "force_remove_source_branch", "web_url")
	if mr["iid"] != float64(1) || mr["state"] != "opened" || mr["merge_status"] != "can_be_merged" || mr["sha"] != head ||
		mr["merge_commit_sha"] != nil || mr["assignee"] != nil || fmt.Sprint(mr["labels"]) != "[a b]" || mr["subscribed"] != true ||
		!strings.HasSuffix(fmt.Sprint(mr["web_url"]), "/root/shop/merge_requests/1") || !isoTime.MatchString(fmt.Sprint(mr["created_at"])) {
		t.Fatalf("created %v", mr)
	}
	wantError(t, c.expect(400, "POST", base, dev, form("source_branch", "feature", "target_branch", "master")), "title is missing")
	c.expectBody(422, `{"message":"You can not use same project/branch for source and target"}`,
		"POST", base, dev, form("source_branch", "master", "target_branch", "master", "title", "x"))
	c.expectBody(409, `{"message":"Cannot Create: This merge request already exists: [\"Add feature\"]"}`,
		"POST", base, dev, form("source_branch", "feature", "target_branch", "master", "title", "again"))
	wantField(t, c.expect(400, "POST", base, dev, form("source_branch", "nope", "target_branch", "master", "title", "x")), "source_branch", "")
	c.expect(401, "POST", base, "", form("source_branch", "other", "target_branch", "master", "title", "x"))
	c.expectBody(404, `{"message":"404 Project Not Found"}`, "GET", base, outsider, nil)
	c.expectBody(404, `{"message":"404 Merge Request Not Found"}`, "GET", base+"/99", dev, nil)
	c.expect(201, "POST", base, c.srv.RootToken, form("source_branch", "other", "target_branch", "master", "title", "Other"))

	// Lists and their totals.
	r := c.expect(200, "GET", base, dev, nil)
	if l := r.list(t); len(l) != 2 || r.header.Get("X-Total") != "2" || l[0]["iid"] != float64(2) {
		t.Errorf("list: X-Total %q %s", r.header.Get("X-Total"), r.body)
	}
	r = c.expect(200, "GET", base+"?per_page=1&page=2", dev, nil)
	if l := r.list(t); len(l) != 1 || r.header.Get("X-Total") != "2" || r.header.Get("X-Total-Pages") != "2" || l[0]["iid"] != float64(1) {
		t.Errorf("page 2: %v %s", r.header, r.body)
	}
	if l := c.expect(200, "GET", base+"?labels=a", dev, nil).list(t); len(l) != 1 || l[0]["iid"] != float64(1) {
		t.Errorf("labels=a: %v", l)
	}
	c.expect(400, "GET", base+"?state=asleep", dev, nil)
	c.expect(400, "GET", base+"?order_by=colour", dev, nil)

	// Update, close, reopen.
	up := c.expect(200, "PUT", base+"/1", dev, form("title", "WIP: Add feature", "description", "more")).object(t)
	if up["title"] != "WIP: Add feature" || up["work_in_progress"] != true || up["description"] != "more" {
		t.Errorf("update %v", up)
	}
	c.expectBody(405, `{"message":"405 Method Not Allowed"}`, "PUT", base+"/1/merge", dev, nil)
	c.expect(200, "PUT", base+"/1", dev, form("title", "Add feature"))
	wantError(t, c.expect(400, "PUT", base+"/1", dev, nil), "at least one parameter must be provided")
	c.expect(404, "PUT", base+"/1", outsider, form("title", "x"))
	if cl := c.expect(200, "PUT", base+"/1", dev, form("state_event", "close")).object(t); cl["state"] != "closed" || cl["closed_at"] == nil {
		t.Errorf("close %v", cl)
	}
	if r := c.expect(200, "GET", base+"?state=closed", dev, nil); r.header.Get("X-Total") != "1" {
		t.Errorf("closed list X-Total %q", r.header.Get("X-Total"))
	}
	c.expectBody(406, `{"message":"Method Not Allowed"}`, "PUT", base+"/1/merge", dev, nil)
	if re := c.expect(200, "PUT", base+"/1", dev, form("state_event", "reopen")).object(t); re["state"] != "reopened" {
		t.Errorf("reopen %v", re)
	}
	if r := c.expect(200, "GET", base+"?state=opened", dev, nil); r.header.Get("X-Total") != "2" {
		t.Errorf("opened list X-Total %q (reopened counts as opened)", r.header.Get("X-Total"))
	}

	// Subscriptions: root is neither author nor assignee.
	if s := c.expect(201, "POST", base+"/1/subscribe", c.srv.RootToken, nil).object(t); s["subscribed"] != true {
		t.Errorf("subscribe %v", s)
	}
	if again := c.expect(304, "POST", base+"/1/subscribe", c.srv.RootToken, nil); len(again.body) != 0 {
		t.Errorf("304 with a body %q", again.body)
	}
	if s := c.expect(201, "POST", base+"/1/unsubscribe", c.srv.RootToken, nil).object(t); s["subscribed"] != false {
		t.Errorf("unsubscribe %v", s)
	}
	c.expect(304, "POST", base+"/1/unsubscribe", c.srv.RootToken, nil)

	// Merge, then a second merge.
	c.expect(401, "PUT", base+"/1/merge", "", nil)
	c.expectBody(409, `{"message":"SHA does not match HEAD of source branch: `+head+`"}`,
		"PUT", base+"/1/merge", dev, form("sha", strings.Repeat("0", 40)))
	m := c.expect(200, "PUT", base+"/1/merge", dev, form("sha", head)).object(t)
	sha, _ := m["merge_commit_sha"].(string)
	if m["state"] != "merged" || len(sha) != 40 {
		t.Fatalf("merged %v", m)
	}
	c.expectBody(406, `{"message":"Method Not Allowed"}`, "PUT", base+"/1/merge", dev, nil)
	if got := c.expect(200, "GET", base+"/1", dev, nil).object(t); got["state"] != "merged" || got["merge_commit_sha"] != sha {
		t.Errorf("after merge %v", got)
	}
	if b := c.expect(200, "GET", fmt.Sprintf("/projects/%d/repository/branches/master", pid), dev, nil).object(t); b["commit"].(map[string]any)["id"] != sha {
		t.Errorf("master is %v, merge commit %s", b["commit"], sha)
	}
	if r := c.expect(200, "GET", base+"?state=merged", dev, nil); r.header.Get("X-Total") != "1" {
		t.Errorf("merged list X-Total %q", r.header.Get("X-Total"))
	}
	if evs := c.expect(200, "GET", fmt.Sprintf("/projects/%d/events?action=merged", pid), dev, nil).list(t); len(evs) != 1 || evs[0]["target_type"] != "MergeRequest" {
		t.Errorf("merged events %v", evs)
	}
}
