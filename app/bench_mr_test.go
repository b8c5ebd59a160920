package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// Sizes of the merge request benchmarks.
const (
	benchMRs         = 10000
	benchMRBranches  = 5
	benchChangeFiles = 500
)

// BenchmarkMergeRequests measures listing 100 of 10,000 merge requests and
// reading the changes of a merge request touching 500 files, over HTTP:
//
//	go test ./app -run '^$' -bench MergeRequests -benchtime 20x
func BenchmarkMergeRequests(b *testing.B) {
	b.Run("list100of10000", func(b *testing.B) {
		srv := apptest.New(b, quietLogs())
		e := newMREnv(b, srv, "bench-list")
		other, _ := createUser(b, srv, "bench-author")
		seedMRs(b, e, benchMRs, benchMRBranches, other)
		path := fmt.Sprintf("/projects/%d/merge_requests?per_page=100", e.pid)
		if list, total := getMRs(b, srv, path); len(list) != 100 || total != fmt.Sprint(benchMRs) {
			b.Fatalf("list: %d merge requests, X-Total %q", len(list), total)
		}
		b.ReportAllocs()
		for b.Loop() {
			if resp, body := srv.Do(b, "GET", path, srv.RootToken, nil); resp.StatusCode != http.StatusOK {
				b.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
			}
		}
	})
	b.Run("changes500files", func(b *testing.B) {
		srv := apptest.New(b, quietLogs())
		e := newMREnv(b, srv, "bench-changes")
		path := wideMR(b, e, benchChangeFiles)
		if n := countChanges(b, srv, path); n != benchChangeFiles {
			b.Fatalf("changes: %d entries, want %d", n, benchChangeFiles)
		}
		b.ReportAllocs()
		for b.Loop() {
			if resp, body := srv.Do(b, "GET", path, srv.RootToken, nil); resp.StatusCode != http.StatusOK {
				b.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
			}
		}
	})
}

// TestBenchMRShape runs the benchmark's requests at small sizes: they
// answer correctly, and a page of 100 merge requests costs the same number
// of SQL queries as a page of 20.
func TestBenchMRShape(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t, quietLogs())
	e := newMREnv(t, srv, "shape")
	other, _ := createUser(t, srv, "shape-author")
	const n = 100
	seedMRs(t, e, n, 4, other)
	rootID := userID(t, srv, srv.RootToken)

	base := fmt.Sprintf("/projects/%d/merge_requests", e.pid)
	list, total := getMRs(t, srv, base+"?per_page=100")
	if len(list) != n || total != fmt.Sprint(n) {
		t.Fatalf("list: %d merge requests, X-Total %q", len(list), total)
	}
	for i, m := range list {
		iid := int64(n - i) // newest first
		author := rootID
		if iid%2 == 0 {
			author = other
		}
		if m.IID != iid || m.Author.ID != author || m.ProjectID != e.pid || (iid%3 == 0) != (m.Assignee != nil) ||
			strings.Join(m.Labels, ",") != fmt.Sprintf("bench,l%d", iid%7) || m.Title != fmt.Sprintf("Seeded change %d", iid) {
			t.Fatalf("entry %d: %+v", i, m)
		}
	}
	if l, total := getMRs(t, srv, base+"?state=opened"); len(l) != 4 || total != "4" {
		t.Errorf("opened: %d, X-Total %q", len(l), total)
	}

	// Constant queries per page: measure each size twice and keep the
	// smaller count, so background work cannot make a false alarm.
	cost := func(path string) int64 {
		best := int64(-1)
		for range 2 {
			before := srv.Queries()
			getMRs(t, srv, path)
			if q := srv.Queries() - before; best < 0 || q < best {
				best = q
			}
		}
		return best
	}
	getMRs(t, srv, base+"?per_page=20") // warm-up: first-request bookkeeping
	q20, q100 := cost(base+"?per_page=20"), cost(base+"?per_page=100")
	t.Logf("queries: %d for 20 merge requests, %d for 100", q20, q100)
	if q20 != q100 {
		t.Errorf("listing 100 merge requests took %d queries, 20 took %d: a query per merge request", q100, q20)
	}

	path := wideMR(t, e, 30)
	if got := countChanges(t, srv, path); got != 30 {
		t.Errorf("changes: %d entries, want 30", got)
	}
}

// benchMR is what the shape test reads of a listed merge request.
type benchMR struct {
	IID       int64    `json:"iid"`
	ProjectID int64    `json:"project_id"`
	Title     string   `json:"title"`
	Labels    []string `json:"labels"`
	Author    struct {
		ID int64 `json:"id"`
	} `json:"author"`
	Assignee *struct {
		ID int64 `json:"id"`
	} `json:"assignee"`
}

func getMRs(tb testing.TB, srv *apptest.Server, path string) ([]benchMR, string) {
	tb.Helper()
	var l []benchMR
	resp := srv.JSON(tb, "GET", path, srv.RootToken, nil, 200, &l)
	return l, resp.Header.Get("X-Total")
}

func userID(tb testing.TB, srv *apptest.Server, token string) int64 {
	tb.Helper()
	var u struct{ ID int64 }
	srv.JSON(tb, "GET", "/user", token, nil, 200, &u)
	return u.ID
}

// seedMRs writes n merge requests into the store directly, IIDs 1..n
// created a second apart: one open per branch (the newest), the rest
// alternately closed and merged; even IIDs are by other, odd by root;
// every third has other as assignee; labels "bench" and "l<iid%7>".
func seedMRs(tb testing.TB, e *mrEnv, n, branches int, other int64) {
	tb.Helper()
	ctx := context.Background()
	seed := e.commit("master", "", "Seed", mrAdd("README.md", "bench\n"))
	heads := make([]string, branches)
	for i := range heads {
		heads[i] = e.commit(fmt.Sprintf("topic-%d", i), "master", "Topic", mrAdd(fmt.Sprintf("topic-%d.txt", i), "t\n"))
	}
	root := userID(tb, e.srv, e.srv.RootToken)
	start := time.Now().UTC().Add(-time.Duration(n) * time.Second).Truncate(time.Second)
	for i := 1; i <= n; i++ {
		at := start.Add(time.Duration(i) * time.Second)
		b := i % branches
		m := &domain.MergeRequest{
			ProjectID: e.pid, SourceProjectID: e.pid, TargetProjectID: e.pid,
			Title: fmt.Sprintf("Seeded change %d", i), Description: "Seeded for the benchmark",
			State: domain.MRClosed, SourceBranch: fmt.Sprintf("topic-%d", b), TargetBranch: "master",
			AuthorID: root, Labels: []string{"bench", fmt.Sprintf("l%d", i%7)},
			MergeStatus: domain.MergeCanBeMerged, SourceSHA: heads[b], TargetSHA: seed, BaseSHA: seed,
			CreatedAt: at, UpdatedAt: at,
		}
		if i%2 == 0 {
			m.AuthorID = other
		}
		if i%3 == 0 {
			m.AssigneeID = &other
		}
		switch {
		case i > n-branches:
			m.State = domain.MROpened
		case i%2 == 0:
			m.State, m.MergedAt, m.MergeCommitSHA = domain.MRMerged, &at, &heads[b]
		default:
			m.ClosedAt = &at
		}
		if err := e.srv.Store.MergeRequests().Create(ctx, m); err != nil {
			tb.Fatalf("seed merge request %d: %v", i, err)
		}
		if m.IID != int64(i) {
			tb.Fatalf("seeded merge request %d got iid %d", i, m.IID)
		}
	}
}

// wideMR opens a merge request whose source branch adds files files in
// one commit and returns the path of its changes.
func wideMR(tb testing.TB, e *mrEnv, files int) string {
	tb.Helper()
	if !e.hasBranch("master") {
		e.commit("master", "", "Seed", mrAdd("README.md", "wide\n"))
	}
	actions := make([]mrFile, files)
	for i := range actions {
		actions[i] = mrAdd(fmt.Sprintf("wide/d%02d/file-%04d.txt", i%20, i), strings.Repeat(fmt.Sprintf("line of file %d\n", i), 10))
	}
	e.commit("wide", "master", "Touch many files", actions...)
	m := e.open(e.srv.RootToken, "wide", "master", "Many files")
	return e.mrPath(m.IID, "/changes")
}

// countChanges reads a changes response and checks every entry is a new file.
func countChanges(tb testing.TB, srv *apptest.Server, path string) int {
	tb.Helper()
	var m struct {
		Changes []struct {
			NewPath string `json:"new_path"`
			NewFile bool   `json:"new_file"`
			Diff    string `json:"diff"`
		} `json:"changes"`
	}
	resp, body := srv.Do(tb, "GET", path, srv.RootToken, nil)
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, &m); err != nil {
		tb.Fatalf("decode changes: %v", err)
	}
	for _, c := range m.Changes {
		if !c.NewFile || !strings.HasPrefix(c.NewPath, "wide/") || !strings.Contains(c.Diff, "+line of file") {
			tb.Fatalf("change entry %+v", c)
		}
	}
	return len(m.Changes)
}
