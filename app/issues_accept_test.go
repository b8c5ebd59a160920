package app_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"sync"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

// issueJSON is the part of GitLab's issue entity the acceptance tests read.
type issueJSON struct {
	ID           int64    `json:"id"`
	IID          int64    `json:"iid"`
	ProjectID    int64    `json:"project_id"`
	Title        string   `json:"title"`
	Description  string   `json:"description"`
	State        string   `json:"state"`
	Confidential bool     `json:"confidential"`
	Labels       []string `json:"labels"`
	Author       struct {
		ID       int64  `json:"id"`
		Username string `json:"username"`
	} `json:"author"`
}

// TestConcurrentIssueIIDs: 20 developers each open 10 issues at the same
// moment (200 concurrent creates): every create answers 201 and the iids
// are exactly 1..200, each issue with its author. SQLite and Postgres.
func TestConcurrentIssueIIDs(t *testing.T) {
	t.Parallel()
	eachDriver(t, concurrentIssueIIDs)
}

func concurrentIssueIIDs(t *testing.T, srv *apptest.Server) {
	const users, perUser = 20, 10
	var p struct{ ID int64 }
	srv.JSON(t, "POST", "/projects", srv.RootToken, url.Values{"name": {"iid-race"}, "visibility": {"private"}}, 201, &p)
	ids, tokens := make([]int64, users), make([]string, users)
	for i := range ids {
		ids[i], tokens[i] = createUser(t, srv, fmt.Sprintf("racer%d", i))
		srv.JSON(t, "POST", fmt.Sprintf("/projects/%d/members", p.ID), srv.RootToken,
			url.Values{"user_id": {fmt.Sprint(ids[i])}, "access_level": {"30"}}, 201, nil)
	}

	type result struct {
		status int
		body   string
		issue  issueJSON
	}
	results := make([]result, users*perUser)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for u := 0; u < users; u++ {
		for k := 0; k < perUser; k++ {
			wg.Add(1)
			go func(u, k int) {
				defer wg.Done()
				<-start
				r := &results[u*perUser+k]
				resp, body := srv.Do(t, "POST", fmt.Sprintf("/projects/%d/issues", p.ID), tokens[u],
					url.Values{"title": {fmt.Sprintf("issue %d of racer%d", k, u)}})
				r.status, r.body = resp.StatusCode, string(body)
				if r.status == 201 {
					if err := json.Unmarshal(body, &r.issue); err != nil {
						r.body = "undecodable: " + r.body
					}
				}
			}(u, k)
		}
	}
	close(start)
	wg.Wait()

	seen := map[int64]string{}
	var iids []int64
	for i, r := range results {
		u, k := i/perUser, i%perUser
		if r.status != 201 {
			t.Errorf("racer%d issue %d: status %d %s", u, k, r.status, r.body)
			continue
		}
		title := fmt.Sprintf("issue %d of racer%d", k, u)
		if r.issue.Title != title || r.issue.Author.ID != ids[u] || r.issue.ProjectID != p.ID || r.issue.State != "opened" {
			t.Errorf("racer%d issue %d: created %+v", u, k, r.issue)
		}
		if prev, dup := seen[r.issue.IID]; dup {
			t.Errorf("iid %d given twice: %q and %q", r.issue.IID, prev, title)
		}
		seen[r.issue.IID] = title
		iids = append(iids, r.issue.IID)
	}
	sort.Slice(iids, func(i, j int) bool { return iids[i] < iids[j] })
	for i, iid := range iids {
		if iid != int64(i+1) {
			t.Fatalf("iids are not 1..%d: %v", users*perUser, iids)
		}
	}
	if len(iids) != users*perUser {
		t.Fatalf("%d issues created, want %d", len(iids), users*perUser)
	}

	// What was answered is what is stored: every page of the list, and
	// each issue read back by its iid.
	stored := map[int64]string{}
	for page := 1; ; page++ {
		var l []issueJSON
		resp := srv.JSON(t, "GET", fmt.Sprintf("/projects/%d/issues?state=all&per_page=100&page=%d", p.ID, page), srv.RootToken, nil, 200, &l)
		if page == 1 && resp.Header.Get("X-Total") != fmt.Sprint(users*perUser) {
			t.Errorf("X-Total %q, want %d", resp.Header.Get("X-Total"), users*perUser)
		}
		for _, is := range l {
			stored[is.IID] = is.Title
		}
		if resp.Header.Get("X-Next-Page") == "" {
			break
		}
	}
	if len(stored) != users*perUser {
		t.Errorf("the list shows %d distinct issues, want %d", len(stored), users*perUser)
	}
	for iid, title := range seen {
		if stored[iid] != title {
			t.Errorf("iid %d: listed as %q, created as %q", iid, stored[iid], title)
		}
	}
	for _, iid := range []int64{1, 100, 200} {
		var is issueJSON
		srv.JSON(t, "GET", fmt.Sprintf("/projects/%d/issues/%d", p.ID, iid), tokens[0], nil, 200, &is)
		if is.IID != iid || is.Title != seen[iid] {
			t.Errorf("GET issue %d: %+v, created as %q", iid, is, seen[iid])
		}
	}
	// The next issue continues the sequence.
	var next issueJSON
	srv.JSON(t, "POST", fmt.Sprintf("/projects/%d/issues", p.ID), tokens[0], url.Values{"title": {"after the race"}}, 201, &next)
	if next.IID != users*perUser+1 {
		t.Errorf("next issue has iid %d, want %d", next.IID, users*perUser+1)
	}
}
