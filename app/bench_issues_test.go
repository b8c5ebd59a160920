package app_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// benchIssues is how many issues the issue list benchmark seeds.
const benchIssues = 10000

// seedIssues creates n issues in a new project through the store (every
// tenth confidential, every third labelled) and returns the project.
func seedIssues(tb testing.TB, srv *apptest.Server, name string, n int) int64 {
	tb.Helper()
	var p struct{ ID int64 }
	srv.JSON(tb, http.MethodPost, "/projects", srv.RootToken, url.Values{"name": {name}, "visibility": {"public"}}, http.StatusCreated, &p)
	root := userID(tb, srv, srv.RootToken)
	store := srv.Store.Issues()
	for i := 0; i < n; i++ {
		is := &domain.Issue{ProjectID: p.ID, Title: fmt.Sprintf("Issue %d", i), Description: "seeded",
			State: domain.IssueOpened, AuthorID: root, Confidential: i%10 == 0}
		if i%3 == 0 {
			is.Labels = []string{"bug"}
		}
		if err := store.Create(context.Background(), is); err != nil {
			tb.Fatalf("seed issue %d: %v", i, err)
		}
	}
	return p.ID
}

// BenchmarkIssues measures listing 100 of 10,000 issues over HTTP as an
// outsider (confidential ones filtered in the query) and as the owner:
//
//	go test ./app -run '^$' -bench Issues -benchtime 20x
func BenchmarkIssues(b *testing.B) {
	srv := apptest.New(b, quietLogs())
	pid := seedIssues(b, srv, "bench-issues", benchIssues)
	_, outsider := createUser(b, srv, "bench-outsider")
	path := fmt.Sprintf("/projects/%d/issues?per_page=100", pid)
	for _, who := range []struct{ name, token string }{{"owner", srv.RootToken}, {"outsider", outsider}} {
		resp, _ := srv.Do(b, http.MethodGet, path, who.token, nil)
		want := benchIssues
		if who.name == "outsider" {
			want = benchIssues - benchIssues/10
		}
		if got := resp.Header.Get("X-Total"); got != fmt.Sprint(want) {
			b.Fatalf("%s: X-Total %s, want %d", who.name, got, want)
		}
		b.Run("list100of10000/"+who.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if resp, body := srv.Do(b, http.MethodGet, path, who.token, nil); resp.StatusCode != http.StatusOK {
					b.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
				}
			}
		})
	}
}

// TestBenchIssuesShape: the benchmark's list answers, and a page of 100
// issues costs the same number of SQL queries as a page of 20.
func TestBenchIssuesShape(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t, quietLogs())
	pid := seedIssues(t, srv, "shape-issues", 100)
	queries := func(perPage int) int64 {
		path := fmt.Sprintf("/projects/%d/issues?per_page=%d", pid, perPage)
		before := srv.Queries()
		var list []struct{ IID int64 }
		resp := srv.JSON(t, http.MethodGet, path, srv.RootToken, nil, http.StatusOK, &list)
		if len(list) != perPage || resp.Header.Get("X-Total") != "100" {
			t.Fatalf("%s: %d issues, X-Total %s", path, len(list), resp.Header.Get("X-Total"))
		}
		return srv.Queries() - before
	}
	queries(20) // warm the caches the first request fills
	if small, large := queries(20), queries(100); small != large {
		t.Errorf("a page of 20 issues costs %d queries, a page of 100 costs %d", small, large)
	}
}
