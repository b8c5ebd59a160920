package mergerequests_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
)

// listFixture: four merge requests created a minute apart (on the
// server's clock):
// 1 "First"  labels api,bug  opened
// 2 "Second" labels bug      closed
// 3 "Third"  no labels       reopened
// 4 "Fourth" no labels       merged
type listFixture struct {
	s   *mrServer
	r   seeded
	dev person
	mrs []mrJSON // by iid-1
}

func newListFixture(t *testing.T) *listFixture {
	s := newServer(t)
	f := &listFixture{s: s, r: s.seed("lists", "private"), dev: s.person("dev")}
	s.member(f.r.id, f.dev, developer)
	for i, c := range []struct{ title, labels string }{{"First", "bug,api"}, {"Second", "bug"}, {"Third", ""}, {"Fourth", ""}} {
		src := fmt.Sprintf("b%d", i+1)
		s.branch(f.r, src)
		extra := []string{}
		if c.labels != "" {
			extra = append(extra, "labels", c.labels)
		}
		f.mrs = append(f.mrs, s.create(f.dev.token, f.r.id, src, "master", c.title, extra...))
		s.Advance(time.Minute)
	}
	s.mrCall(200, "PUT", mrPath(f.r.id, 2, ""), f.dev.token, form("state_event", "close"))
	s.mrCall(200, "PUT", mrPath(f.r.id, 3, ""), f.dev.token, form("state_event", "close"))
	s.mrCall(200, "PUT", mrPath(f.r.id, 3, ""), f.dev.token, form("state_event", "reopen"))
	s.mrCall(200, "PUT", mrPath(f.r.id, 4, "/merge"), f.dev.token, nil)
	return f
}

// iidsOf lists the iids the project list returns for a query.
func (f *listFixture) iidsOf(query string) []int64 {
	f.s.t.Helper()
	list, _ := f.s.list(f.dev.token, mrsPath(f.r.id)+"?"+query)
	return iids(list)
}

// TestListFilters covers state, iids[], labels, milestone, order_by/sort
// and created_after/before.
func TestListFilters(t *testing.T) {
	t.Parallel()
	f := newListFixture(t)
	s := f.s
	for _, c := range []struct {
		query string
		want  []int64
	}{
		{"state=opened", []int64{3, 1}},
		{"state=closed", []int64{2}},
		{"state=merged", []int64{4}},
		{"state=all", []int64{4, 3, 2, 1}},
		{"state=all&iids[]=1&iids[]=3", []int64{3, 1}},
		{"state=all&iids[]=2", []int64{2}},
		{"state=all&labels=bug", []int64{2, 1}},
		{"state=all&labels=bug,api", []int64{1}},
		{"state=all&labels=api,bug,nope", []int64{}},
		{"state=all&labels=No+Label", []int64{4, 3}},
		{"state=all&milestone=None", []int64{4, 3, 2, 1}},
		{"state=all&milestone=v1.0", []int64{}},
		{"state=all&order_by=created_at&sort=asc", []int64{1, 2, 3, 4}},
		{"state=all&sort=desc", []int64{4, 3, 2, 1}},
		{"state=opened&sort=asc", []int64{1, 3}},
		{"state=all&created_after=" + url.QueryEscape(f.mrs[1].CreatedAt), []int64{4, 3, 2}},
		{"state=all&created_before=" + before(t, f.mrs[1]), []int64{2, 1}},
		{"state=all&created_after=" + url.QueryEscape(f.mrs[1].CreatedAt) + "&created_before=" + before(t, f.mrs[2]), []int64{3, 2}},
	} {
		if got := f.iidsOf(c.query); !reflect.DeepEqual(got, c.want) {
			t.Errorf("?%s: iids %v, want %v", c.query, got, c.want)
		}
	}

	// updated_at follows the last change (stamped by the server's clock).
	s.Advance(time.Minute)
	s.mrCall(200, "PUT", mrPath(f.r.id, 2, ""), f.dev.token, form("description", "touched"))
	if got := f.iidsOf("state=all&order_by=updated_at"); len(got) != 4 || got[0] != 2 {
		t.Errorf("order_by=updated_at: %v, want 2 first", got)
	}
	if got := f.iidsOf("state=all&order_by=updated_at&sort=asc"); len(got) != 4 || got[3] != 2 {
		t.Errorf("order_by=updated_at&sort=asc: %v, want 2 last", got)
	}
}

// TestListSimpleViewAndPagination: view=simple's field set, and the
// pagination headers and Link.
func TestListSimpleViewAndPagination(t *testing.T) {
	t.Parallel()
	f := newListFixture(t)
	s := f.s

	data := s.Expect(200, "GET", mrsPath(f.r.id)+"?state=all&view=simple", f.dev.token, nil).Body
	var items []json.RawMessage
	decode(t, data, &items)
	if len(items) != 4 {
		t.Fatalf("view=simple: %s", data)
	}
	want := []string{"created_at", "description", "id", "iid", "project_id", "state", "title", "updated_at", "web_url"}
	for i, it := range items {
		if got := keys(t, it); !reflect.DeepEqual(got, want) {
			t.Fatalf("view=simple item %d keys %v, want %v", i, got, want)
		}
	}
	var first mrJSON
	decode(t, items[0], &first)
	if first.IID != 4 || first.State != "merged" || first.Title != "Fourth" || first.WebURL != s.URL+"/root/lists/merge_requests/4" {
		t.Fatalf("view=simple first: %+v", first)
	}

	list, resp := s.list(f.dev.token, mrsPath(f.r.id)+"?state=all&per_page=3")
	h := resp.Header
	if !reflect.DeepEqual(iids(list), []int64{4, 3, 2}) || h.Get("X-Total") != "4" || h.Get("X-Total-Pages") != "2" ||
		h.Get("X-Per-Page") != "3" || h.Get("X-Page") != "1" || h.Get("X-Next-Page") != "2" || h.Get("X-Prev-Page") != "" {
		t.Fatalf("page 1: %v headers %v", iids(list), h)
	}
	links := parseLinks(h.Get("Link"))
	if _, ok := links["prev"]; ok || links["next"] == "" || links["first"] == "" || links["last"] == "" {
		t.Fatalf("page 1 Link %q", h.Get("Link"))
	}
	next, err := url.Parse(links["next"])
	if err != nil || next.Scheme+"://"+next.Host != s.URL || next.Path != "/api/v4"+mrsPath(f.r.id) ||
		next.Query().Get("page") != "2" || next.Query().Get("per_page") != "3" || next.Query().Get("state") != "all" {
		t.Fatalf("next link %q", links["next"])
	}
	list, resp = s.list(f.dev.token, links["next"])
	h = resp.Header
	if !reflect.DeepEqual(iids(list), []int64{1}) || h.Get("X-Page") != "2" || h.Get("X-Prev-Page") != "1" || h.Get("X-Next-Page") != "" {
		t.Fatalf("page 2: %v headers %v", iids(list), h)
	}
	if links := parseLinks(h.Get("Link")); links["prev"] == "" || links["next"] != "" {
		t.Fatalf("page 2 Link %q", h.Get("Link"))
	}
}

// TestCommitsAndChanges: the merge request's commits, newest first, and
// its changes against the merge base.
func TestCommitsAndChanges(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.seed("mr-commits", "private")
	dev := s.person("dev")
	s.member(r.id, dev, developer)
	second := s.commit(r.id, "feature", "", "more.txt", "more\n")
	s.create(dev.token, r.id, "feature", "master", "Two commits")

	var commits []struct {
		ID string `json:"id"`
	}
	data := s.Expect(200, "GET", mrPath(r.id, 1, "/commits"), dev.token, nil).Body
	decode(t, data, &commits)
	if len(commits) != 2 || commits[0].ID != second || commits[1].ID != r.feature {
		t.Fatalf("commits: %s", data)
	}
	for _, k := range []string{`"short_id":"` + second[:8] + `"`, `"title":"Change more.txt"`, `"author_name":"Seeder"`,
		`"author_email":"seeder@example.com"`, `"created_at":`, `"message":"Change more.txt`} {
		if !strings.Contains(string(data), k) {
			t.Errorf("commits lack %s: %s", k, data)
		}
	}

	var ch struct {
		mrJSON
		Changes []struct {
			NewPath string `json:"new_path"`
			NewFile bool   `json:"new_file"`
			Diff    string `json:"diff"`
		} `json:"changes"`
	}
	data = s.Expect(200, "GET", mrPath(r.id, 1, "/changes"), dev.token, nil).Body
	decode(t, data, &ch)
	if ch.IID != 1 || ch.SHA != second || len(ch.Changes) != 2 || ch.Changes[0].NewPath != "feature.txt" ||
		ch.Changes[1].NewPath != "more.txt" || !ch.Changes[0].NewFile || !strings.Contains(ch.Changes[1].Diff, "+more") {
		t.Fatalf("changes: %s", data)
	}
}

// TestGlobalList: GET /merge_requests scopes, and that it only lists
// merge requests of projects whose code the caller may read.
func TestGlobalList(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	alice, bob := s.person("alice"), s.person("bob")
	shared := s.seed("shared", "private")
	s.member(shared.id, alice, developer)
	s.member(shared.id, bob, developer)
	open := s.seed("open", "public")
	secret := s.seed("secret", "private")
	guestOnly := s.seed("guest-only", "private")
	s.member(guestOnly.id, alice, guest)

	s.create(alice.token, shared.id, "feature", "master", "A1", "assignee_id", fmt.Sprint(bob.id))
	s.branch(shared, "bob")
	s.create(bob.token, shared.id, "bob", "master", "B1", "assignee_id", fmt.Sprint(alice.id), "labels", "x")
	s.branch(shared, "root")
	s.create(s.RootToken, shared.id, "root", "master", "R-shared")
	s.create(s.RootToken, open.id, "feature", "master", "R-open")
	s.create(s.RootToken, secret.id, "feature", "master", "R-secret")
	s.create(s.RootToken, guestOnly.id, "feature", "master", "R-guest")

	s.ExpectBody(401, unauthorized, "GET", "/merge_requests", "", nil)
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"", []string{"A1"}},
		{"scope=created_by_me", []string{"A1"}},
		{"scope=created-by-me", []string{"A1"}},
		{"scope=assigned_to_me", []string{"B1"}},
		{"scope=assigned-to-me", []string{"B1"}},
		{"scope=all", []string{"A1", "B1", "R-open", "R-shared"}},
		{"scope=all&labels=x", []string{"B1"}},
		{"scope=all&author_id=" + fmt.Sprint(bob.id), []string{"B1"}},
		{"scope=all&assignee_id=" + fmt.Sprint(bob.id), []string{"A1"}},
		{"scope=all&state=closed", []string{}},
	} {
		list, _ := s.list(alice.token, "/merge_requests?"+c.query)
		if got := titles(list); !reflect.DeepEqual(got, c.want) {
			t.Errorf("alice ?%s: %v, want %v", c.query, got, c.want)
		}
	}
	list, _ := s.list(s.RootToken, "/merge_requests?scope=all")
	if got := titles(list); !reflect.DeepEqual(got, []string{"A1", "B1", "R-guest", "R-open", "R-secret", "R-shared"}) {
		t.Errorf("root scope=all: %v", got)
	}
	list, resp := s.list(alice.token, "/merge_requests?scope=all&per_page=1")
	if len(list) != 1 || resp.Header.Get("X-Total") != "4" || resp.Header.Get("X-Total-Pages") != "4" {
		t.Errorf("alice scope=all per_page=1: %d items, X-Total %q", len(list), resp.Header.Get("X-Total"))
	}
	// Merge requests turned off: the project's list is a 404, and the
	// list across projects leaves them out, for administrators too.
	s.Expect(200, "PUT", fmt.Sprintf("/projects/%d", open.id), s.RootToken, form("merge_requests_enabled", "false"))
	s.Expect(404, "GET", fmt.Sprintf("/projects/%d/merge_requests", open.id), s.RootToken, nil)
	list, _ = s.list(s.RootToken, "/merge_requests?scope=all")
	if got := titles(list); !reflect.DeepEqual(got, []string{"A1", "B1", "R-guest", "R-secret", "R-shared"}) {
		t.Errorf("root scope=all, merge requests of open turned off: %v", got)
	}
	list, resp = s.list(alice.token, "/merge_requests?scope=all")
	if got := titles(list); !reflect.DeepEqual(got, []string{"A1", "B1", "R-shared"}) || resp.Header.Get("X-Total") != "3" {
		t.Errorf("alice scope=all, merge requests of open turned off: %v (X-Total %q)", got, resp.Header.Get("X-Total"))
	}
}

// before is a created_before bound that takes m in: its created_at plus
// one millisecond, since JSON shows milliseconds and the store keeps more.
func before(t *testing.T, m mrJSON) string {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, m.CreatedAt)
	if err != nil {
		t.Fatalf("created_at %q: %v", m.CreatedAt, err)
	}
	return url.QueryEscape(at.Add(time.Millisecond).Format("2006-01-02T15:04:05.000Z07:00"))
}

// parseLinks reads a Link header into rel -> URL.
func parseLinks(h string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(h, ",") {
		u, rel, ok := strings.Cut(strings.TrimSpace(part), ";")
		if !ok {
			continue
		}
		rel = strings.TrimSpace(rel)
		rel = strings.TrimSuffix(strings.TrimPrefix(rel, `rel="`), `"`)
		out[rel] = strings.Trim(strings.TrimSpace(u), "<>")
	}
	return out
}
