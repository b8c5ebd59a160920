package events_test

import (
	"fmt"
	"net/http"
	"testing"
)

// TestCodeEventsNeedCodeAccess: in a private project, pushes, merge
// requests and notes on them are code a guest may not read (404 on the
// merge request itself), so the feeds leave them out for guests while
// reporters see them; issue events stay visible to both.
func TestCodeEventsNeedCodeAccess(t *testing.T) {
	t.Parallel()
	f := newTrackerFixture(t, newServer(t))
	var p struct{ ID int64 }
	root := f.Srv.RootToken
	f.Expect(http.StatusCreated, http.MethodPost, "/projects", root, map[string]any{"name": "Secret", "visibility": "private"}).Decode(t, &p)
	for user, level := range map[string]int{"guest": 10, "reporter": 20} {
		f.Expect(http.StatusCreated, http.MethodPost, fmt.Sprintf("/projects/%d/members", p.ID), root,
			map[string]any{"user_id": f.users[user], "access_level": level})
	}
	commit := func(branch, start, path string) {
		body := map[string]any{"branch": branch, "commit_message": "secret commit " + path,
			"actions": []map[string]any{{"action": "create", "file_path": path, "content": "x\n"}}}
		if start != "" {
			body["start_branch"] = start
		}
		f.Expect(http.StatusCreated, http.MethodPost, fmt.Sprintf("/projects/%d/repository/commits", p.ID), root, body)
	}
	commit("master", "", "README.md")
	commit("feature", "master", "feature.txt")
	var mr struct{ IID int64 }
	f.Expect(http.StatusCreated, http.MethodPost, fmt.Sprintf("/projects/%d/merge_requests", p.ID), root,
		map[string]any{"source_branch": "feature", "target_branch": "master", "title": "Secret MR"}).Decode(t, &mr)
	f.Expect(http.StatusCreated, http.MethodPost, fmt.Sprintf("/projects/%d/merge_requests/%d/notes", p.ID, mr.IID), root,
		map[string]any{"body": "secret review"})
	f.Expect(http.StatusCreated, http.MethodPost, fmt.Sprintf("/projects/%d/issues", p.ID), root,
		map[string]any{"title": "Open issue"})

	kinds := func(who, path string) map[string]int {
		out := map[string]int{}
		for _, e := range f.feed(t, who, path) {
			if e.ProjectID == nil || *e.ProjectID != p.ID {
				continue
			}
			kind := e.ActionName
			if e.TargetType != nil {
				kind += " " + *e.TargetType
			}
			out[kind]++
		}
		return out
	}
	for _, path := range []string{fmt.Sprintf("/projects/%d/events", p.ID), fmt.Sprintf("/users/%d/events", 1)} {
		rep := kinds("reporter", path)
		if rep["pushed new"] == 0 && rep["pushed to"] == 0 || rep["opened MergeRequest"] != 1 || rep["commented on Note"] != 1 || rep["opened Issue"] != 1 {
			t.Errorf("%s as reporter: %v; want pushes, the merge request, its note and the issue", path, rep)
		}
		guest := kinds("guest", path)
		hidden := guest["pushed new"] + guest["pushed to"] + guest["opened MergeRequest"] + guest["commented on Note"]
		if guest["opened Issue"] != 1 || hidden != 0 {
			t.Errorf("%s as guest: %v; want the issue and no push, merge request or its note", path, guest)
		}
	}
}
