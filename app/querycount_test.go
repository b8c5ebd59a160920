package app_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

// TestHotReadQueryCounts pins the SQL queries of the hot reads (issue 14)
// on both databases, so that a regression fails CI: authentication is one
// digest lookup and one user read; a project answer, and a page of issues
// or merge requests, cost a constant number whatever the page size, the
// number of items, or the depth of the group tree.
func TestHotReadQueryCounts(t *testing.T) {
	t.Parallel()
	for _, driver := range []string{"sqlite", "postgres"} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			hotReadQueryCounts(t, apptest.New(t, apptest.Driver(driver), quietLogs()))
		})
	}
}

func hotReadQueryCounts(t *testing.T, srv *apptest.Server) {
	// cost is the smaller of two runs, so background work cannot make a
	// false alarm; a first request warms up per-server bookkeeping.
	cost := func(path, token string) int64 {
		t.Helper()
		srv.JSON(t, http.MethodGet, path, token, nil, http.StatusOK, nil)
		best := int64(-1)
		for range 2 {
			before := srv.Queries()
			srv.JSON(t, http.MethodGet, path, token, nil, http.StatusOK, nil)
			if q := srv.Queries() - before; best < 0 || q < best {
				best = q
			}
		}
		return best
	}
	want := func(what string, got, limit int64) {
		t.Helper()
		if got != limit {
			t.Errorf("%s: %d SQL queries, pinned at %d", what, got, limit)
		}
	}

	want("GET /version with a token", cost("/version", srv.RootToken), 2)
	want("GET /user", cost("/user", srv.RootToken), 2)

	// A personal project with 30 issues and 30 merge requests.
	e := newMREnv(t, srv, "counted")
	other, otherToken := createUser(t, srv, "counted-author")
	seedMRs(t, e, 30, 3, other)
	issues := seedIssues(t, srv, "counted-issues", 30)
	project := fmt.Sprintf("/projects/%d", issues)
	// The owner is the caller here: the user authentication read is reused.
	want("GET /projects/:id with a token", cost(project, srv.RootToken), 7)
	want("GET /projects/:id anonymous", cost(project, ""), 5)
	// A signed-in non-member may see the open confidential issues they
	// wrote or are assigned: with some in the project (one in ten here),
	// those are counted for them (IssueStore.CountOpen), one query more.
	// The access check's membership and share reads are reused by the
	// permissions block and shared_with_groups.
	want("GET /projects/:id as a non-member", cost(project, otherToken), 9)

	for _, per := range []int{20, 100} {
		want(fmt.Sprintf("GET issues, %d per page", per), cost(fmt.Sprintf("%s/issues?per_page=%d", project, per), srv.RootToken), 8)
		want(fmt.Sprintf("GET merge_requests, %d per page", per),
			cost(fmt.Sprintf("/projects/%d/merge_requests?per_page=%d", e.pid, per), srv.RootToken), 9)
	}
	more := seedIssues(t, srv, "counted-more", 150)
	want("GET issues of 150", cost(fmt.Sprintf("/projects/%d/issues?per_page=100", more), srv.RootToken), 8)
	// One issue: the project the access check read is not read again.
	want("GET one issue", cost(fmt.Sprintf("%s/issues/1", project), srv.RootToken), 7)
	want("GET one issue as a non-member", cost(fmt.Sprintf("%s/issues/2", project), otherToken), 10)

	// A project four groups deep, read by a member of the top group: the
	// chain is one query, not one per level.
	parent := ""
	var gid int64
	for i := range 4 {
		form := url.Values{"name": {fmt.Sprintf("Level %d", i)}, "path": {fmt.Sprintf("counted-level-%d", i)}, "visibility": {"private"}}
		if parent != "" {
			form.Set("parent_id", parent)
		}
		var g struct{ ID int64 }
		srv.JSON(t, http.MethodPost, "/groups", srv.RootToken, form, http.StatusCreated, &g)
		if i == 0 {
			srv.JSON(t, http.MethodPost, fmt.Sprintf("/groups/%d/members", g.ID), srv.RootToken,
				url.Values{"user_id": {fmt.Sprint(other)}, "access_level": {"30"}}, http.StatusCreated, nil)
		}
		parent, gid = fmt.Sprint(g.ID), g.ID
	}
	var deep struct {
		ID          int64
		Permissions struct {
			GroupAccess *struct {
				AccessLevel int `json:"access_level"`
			} `json:"group_access"`
		}
	}
	srv.JSON(t, http.MethodPost, "/projects", srv.RootToken, url.Values{"name": {"deep"}, "namespace_id": {fmt.Sprint(gid)}}, http.StatusCreated, &deep)
	deepPath := fmt.Sprintf("/projects/%d", deep.ID)
	srv.JSON(t, http.MethodGet, deepPath, otherToken, nil, http.StatusOK, &deep)
	if deep.Permissions.GroupAccess == nil || deep.Permissions.GroupAccess.AccessLevel != 30 {
		t.Errorf("deep project permissions: %+v", deep.Permissions)
	}
	want("GET /projects/:id four groups deep, as a member of the top group", cost(deepPath, otherToken), 8)
	want("GET issues four groups deep", cost(deepPath+"/issues", otherToken), 8)
}
