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
	f := newTrackerFixture(t, "sqlite")
	srv := f.srv
	var p struct{ ID int64 }
	srv.JSON(t, http.MethodPost, "/projects", srv.RootToken, map[string]any{"name": "Secret", "visibility": "private"}, http.StatusCreated, &p)
	for user, level := range map[string]int{"guest": 10, "reporter": 20} {
		srv.JSON(t, http.MethodPost, fmt.Sprintf("/projects/%d/members", p.ID), srv.RootToken,
			map[string]any{"user_id": f.users[user], "access_level": level}, http.StatusCreated, nil)
	}
	commit := func(branch, start, path string) {
		body := map[string]any{"branch": branch, "commit_message": "secret commit " + path,
			"actions": []map[string]any{{"action": "create", "file_path": path, "content": "x\n"}}}
		if start != "" {
			body["start_branch"] = start
		}
		srv.JSON(t, http.MethodPost, fmt.Sprintf("/projects/%d/repository/commits", p.ID), srv.RootToken, body, http.StatusCreated, nil)
	}
	commit("master", "", "README.md")
	commit("feature", "master", "feature.txt")
	var mr struct{ IID int64 }
	srv.JSON(t, http.MethodPost, fmt.Sprintf("/projects/%d/merge_requests", p.ID), srv.RootToken,
		map[string]any{"source_branch": "feature", "target_branch": "master", "title": "Secret MR"}, http.StatusCreated, &mr)
	srv.JSON(t, http.MethodPost, fmt.Sprintf("/projects/%d/merge_requests/%d/notes", p.ID, mr.IID), srv.RootToken,
		map[string]any{"body": "secret review"}, http.StatusCreated, nil)
	srv.JSON(t, http.MethodPost, fmt.Sprintf("/projects/%d/issues", p.ID), srv.RootToken,
		map[string]any{"title": "Open issue"}, http.StatusCreated, nil)

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
