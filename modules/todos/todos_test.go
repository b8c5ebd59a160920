package todos_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core/domain"
)

// seeded is alice's todo list in the common scenario, oldest first:
// t1..t3 pending, t4 done, and t5 on bob's list.
type seeded struct {
	p1, p2             project
	mr1, mr2           domain.MergeRequest
	t1, t2, t3, t4, t5 domain.Todo
}

func (f *fixture) seed() seeded {
	f.t.Helper()
	var s seeded
	s.p1 = f.project(f.bob, "Alpha")
	s.p2 = f.project(f.alice, "Beta")
	s.mr1 = f.mergeRequest(s.p1, f.bob, "Add the alpha feature")
	s.mr2 = f.mergeRequest(s.p2, f.alice, "Fix beta")
	s.t1 = f.todo(f.alice, s.p1, f.bob, domain.TargetMergeRequest, s.mr1.ID, domain.TodoAssigned)
	s.t2 = f.todo(f.alice, s.p1, f.root, domain.TargetIssue, 4242, domain.TodoMentioned)
	s.t3 = f.todo(f.alice, s.p2, f.alice, domain.TargetMergeRequest, s.mr2.ID, domain.TodoMarked)
	s.t4 = f.todo(f.alice, s.p2, f.bob, domain.TargetMergeRequest, s.mr2.ID, domain.TodoBuildFailed)
	s.t5 = f.todo(f.bob, s.p1, f.alice, domain.TargetMergeRequest, s.mr1.ID, domain.TodoAssigned)
	if _, err := f.todos.MarkDone(context.Background(), f.alice.ID, s.t4.ID); err != nil {
		f.t.Fatalf("mark t4 done: %v", err)
	}
	return s
}

func TestListFilters(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, f *fixture) {
		s := f.seed()
		p1, p2 := strconv.FormatInt(s.p1.ID, 10), strconv.FormatInt(s.p2.ID, 10)
		bob := strconv.FormatInt(f.bob.ID, 10)
		for _, c := range []struct {
			query string
			want  []domain.Todo
		}{
			{"", []domain.Todo{s.t3, s.t2, s.t1}},
			{"state=pending", []domain.Todo{s.t3, s.t2, s.t1}},
			{"state=done", []domain.Todo{s.t4}},
			{"action=assigned", []domain.Todo{s.t1}},
			{"action=build_failed", nil},
			{"action=build_failed&state=done", []domain.Todo{s.t4}},
			{"author_id=" + bob, []domain.Todo{s.t1}},
			{"author_id=" + bob + "&state=done", []domain.Todo{s.t4}},
			{"project_id=" + p1, []domain.Todo{s.t2, s.t1}},
			{"project_id=" + p2, []domain.Todo{s.t3}},
			{"type=Issue", []domain.Todo{s.t2}},
			{"type=MergeRequest", []domain.Todo{s.t3, s.t1}},
			{"type=MergeRequest&project_id=" + p2 + "&action=marked", []domain.Todo{s.t3}},
			{"type=Issue&project_id=" + p2, nil},
		} {
			got, _ := f.list(f.alice, c.query)
			want := []int64{}
			for _, td := range c.want {
				want = append(want, td.ID)
			}
			if diff := cmp.Diff(want, ids(got)); diff != "" {
				t.Errorf("GET /todos?%s (-want +got):\n%s", c.query, diff)
			}
		}
		// Bob sees only his own.
		if got, _ := f.list(f.bob, ""); !cmp.Equal(ids(got), []int64{s.t5.ID}) {
			t.Errorf("bob's todos = %v, want [%d]", ids(got), s.t5.ID)
		}

		for _, c := range []struct{ query, body string }{
			{"action=opened", `{"error":"action does not have a valid value"}`},
			{"type=Note", `{"error":"type does not have a valid value"}`},
			{"type=merge_request", `{"error":"type does not have a valid value"}`},
			{"state=all", `{"error":"state does not have a valid value"}`},
			{"action=x&type=y", `{"error":"action does not have a valid value, type does not have a valid value"}`},
			{"author_id=bob", `{"error":"author_id is invalid"}`},
			{"project_id=1.5", `{"error":"project_id is invalid"}`},
		} {
			f.expectError(http.MethodGet, "/todos?"+c.query, f.alice.Token, http.StatusBadRequest, c.body)
		}
	})
}

// TestTodoEntity checks the JSON of a merge request todo and of a todo
// whose target cannot be rendered (issues have no module yet).
func TestTodoEntity(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.seed()
	list, _ := f.list(f.alice, "")
	if len(list) != 3 {
		t.Fatalf("alice has %d todos, want 3", len(list))
	}
	mr, issue := list[2], list[1]
	if mr.ID != s.t1.ID || mr.ActionName != "assigned" || mr.TargetType != "MergeRequest" || mr.State != "pending" ||
		mr.Author == nil || mr.Author.Username != "bob" || mr.Author.ID != f.bob.ID {
		t.Errorf("todo %+v: want t1, assigned by bob, pending", mr)
	}
	if mr.Project == nil || mr.Project.ID != s.p1.ID || mr.Project.Name != s.p1.Name || mr.Project.Path != s.p1.Path ||
		mr.Project.PathWithNamespace != s.p1.PathWithNamespace || mr.Project.NameWithNamespace != s.p1.NameWithNamespace {
		t.Errorf("todo project = %+v, want %+v", mr.Project, s.p1)
	}
	var target struct {
		ID, IID int64
		Title   string
		State   string
		WebURL  string `json:"web_url"`
	}
	if err := json.Unmarshal(mr.Target, &target); err != nil {
		t.Fatalf("target %s: %v", mr.Target, err)
	}
	wantURL := fmt.Sprintf("%s/merge_requests/%d", s.p1.WebURL, s.mr1.IID)
	if target.ID != s.mr1.ID || target.IID != s.mr1.IID || target.Title != s.mr1.Title || target.State != "opened" || target.WebURL != wantURL {
		t.Errorf("target = %+v, want merge request %d (!%d) at %s", target, s.mr1.ID, s.mr1.IID, wantURL)
	}
	if mr.TargetURL != wantURL || mr.Body != s.mr1.Title {
		t.Errorf("target_url %q body %q, want %q and the title", mr.TargetURL, mr.Body, wantURL)
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000Z", mr.CreatedAt); err != nil {
		t.Errorf("created_at %q is not GitLab's timestamp: %v", mr.CreatedAt, err)
	}
	if issue.ID != s.t2.ID || issue.TargetType != "Issue" || string(issue.Target) != "null" || issue.ActionName != "mentioned" ||
		issue.Author == nil || issue.Author.Username != "root" {
		t.Errorf("issue todo = %+v (target %s), want t2 by root with a null target", issue, issue.Target)
	}
}

func TestListPagination(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.project(f.alice, "Paged")
	var made []domain.Todo
	for i := range 5 {
		made = append(made, f.todo(f.alice, p, f.bob, domain.TargetIssue, int64(100+i), domain.TodoMarked))
	}
	f.todo(f.bob, p, f.alice, domain.TargetIssue, 100, domain.TodoMarked) // not alice's: not counted
	f.todo(f.alice, p, f.bob, domain.TargetMergeRequest, 100, domain.TodoMarked)

	got, h := f.list(f.alice, "type=Issue&per_page=2&page=2")
	if want := []int64{made[2].ID, made[1].ID}; !cmp.Equal(ids(got), want) {
		t.Errorf("page 2 = %v, want %v", ids(got), want)
	}
	for name, want := range map[string]string{"X-Total": "5", "X-Total-Pages": "3", "X-Per-Page": "2", "X-Page": "2",
		"X-Next-Page": "3", "X-Prev-Page": "1"} {
		if h.Get(name) != want {
			t.Errorf("%s = %q, want %q", name, h.Get(name), want)
		}
	}
	links := parseLinks(t, h.Get("Link"))
	for rel, page := range map[string]string{"prev": "1", "next": "3", "first": "1", "last": "3"} {
		u, ok := links[rel]
		if !ok {
			t.Errorf("Link has no rel=%q: %s", rel, h.Get("Link"))
			continue
		}
		q := u.Query()
		if !strings.HasPrefix(u.String(), f.c.Srv.URL+"/api/v4/todos?") || q.Get("page") != page ||
			q.Get("per_page") != "2" || q.Get("type") != "Issue" {
			t.Errorf("Link rel=%q = %s, want page %s of type=Issue, 2 per page", rel, u, page)
		}
	}

	got, h = f.list(f.alice, "type=Issue&per_page=2&page=3")
	if !cmp.Equal(ids(got), []int64{made[0].ID}) || h.Get("X-Next-Page") != "" || h.Get("X-Prev-Page") != "2" {
		t.Errorf("last page = %v, next %q prev %q", ids(got), h.Get("X-Next-Page"), h.Get("X-Prev-Page"))
	}
	if _, ok := parseLinks(t, h.Get("Link"))["next"]; ok {
		t.Errorf("last page links a next page: %s", h.Get("Link"))
	}
	if _, h = f.list(f.alice, ""); h.Get("X-Total") != "6" || h.Get("X-Per-Page") != "20" || h.Get("X-Total-Pages") != "1" {
		t.Errorf("defaults: X-Total %q X-Per-Page %q X-Total-Pages %q, want 6, 20, 1",
			h.Get("X-Total"), h.Get("X-Per-Page"), h.Get("X-Total-Pages"))
	}
}

// parseLinks reads a Link header into rel -> URL.
func parseLinks(t *testing.T, header string) map[string]*url.URL {
	t.Helper()
	out := map[string]*url.URL{}
	for _, part := range strings.Split(header, ",") {
		target, params, ok := strings.Cut(strings.TrimSpace(part), ";")
		if !ok {
			continue
		}
		u, err := url.Parse(strings.Trim(strings.TrimSpace(target), "<>"))
		if err != nil {
			t.Fatalf("Link %q: %v", part, err)
		}
		rel := strings.TrimPrefix(strings.TrimSpace(params), "rel=")
		out[strings.Trim(rel, `"`)] = u
	}
	return out
}

func TestAnonymous(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.seed()
	const body = `{"message":"401 Unauthorized"}`
	f.expectError(http.MethodGet, "/todos", "", http.StatusUnauthorized, body)
	f.expectError(http.MethodPost, fmt.Sprintf("/todos/%d/mark_as_done", s.t1.ID), "", http.StatusUnauthorized, body)
	f.expectError(http.MethodPost, "/todos/mark_as_done", "", http.StatusUnauthorized, body)
	f.expectError(http.MethodGet, "/todos", "not-a-token", http.StatusUnauthorized, body)
	if got, _ := f.list(f.alice, ""); len(got) != 3 {
		t.Errorf("anonymous calls changed alice's list: %v", ids(got))
	}
}

func TestMarkOneDone(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, f *fixture) {
		s := f.seed()
		const notFound = `{"message":"404 Todo Not Found"}`
		mark := func(id int64) string { return fmt.Sprintf("/todos/%d/mark_as_done", id) }

		// Another user's todo, an unknown one and a malformed ID are the same 404.
		f.expectError(http.MethodPost, mark(s.t1.ID), f.bob.Token, http.StatusNotFound, notFound)
		f.expectError(http.MethodPost, mark(s.t5.ID), f.alice.Token, http.StatusNotFound, notFound)
		f.expectError(http.MethodPost, mark(s.t5.ID+1000), f.alice.Token, http.StatusNotFound, notFound)
		f.expectError(http.MethodPost, "/todos/abc/mark_as_done", f.alice.Token, http.StatusNotFound, notFound)
		if got, _ := f.list(f.alice, ""); !cmp.Equal(ids(got), []int64{s.t3.ID, s.t2.ID, s.t1.ID}) {
			t.Fatalf("after bob's attempt alice's pending todos = %v", ids(got))
		}
		if got, _ := f.list(f.bob, ""); !cmp.Equal(ids(got), []int64{s.t5.ID}) {
			t.Fatalf("after alice's attempt bob's pending todos = %v", ids(got))
		}

		var done todoJSON
		f.c.Expect(http.StatusCreated, http.MethodPost, mark(s.t1.ID), f.alice.Token, nil).Decode(t, &done)
		if done.ID != s.t1.ID || done.State != "done" || done.ActionName != "assigned" || done.TargetType != "MergeRequest" ||
			done.Project == nil || done.Project.ID != s.p1.ID || string(done.Target) == "null" {
			t.Errorf("marked todo = %+v, want t1 done with its merge request", done)
		}
		if got, _ := f.list(f.alice, ""); !cmp.Equal(ids(got), []int64{s.t3.ID, s.t2.ID}) {
			t.Errorf("pending after marking t1 = %v", ids(got))
		}
		if got, _ := f.list(f.alice, "state=done"); !cmp.Equal(ids(got), []int64{s.t4.ID, s.t1.ID}) {
			t.Errorf("done after marking t1 = %v", ids(got))
		}
		// Marking it again changes nothing.
		f.c.Expect(http.StatusCreated, http.MethodPost, mark(s.t1.ID), f.alice.Token, nil).Decode(t, &done)
		if done.State != "done" {
			t.Errorf("marked again: state %q", done.State)
		}
	})
}

func TestMarkAllDone(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, f *fixture) {
		s := f.seed()
		if r := f.c.Send(http.MethodPost, "/todos/mark_as_done", f.alice.Token, nil); r.Status != http.StatusNoContent || len(r.Body) != 0 {
			t.Fatalf("mark all: %d %q, want 204 without a body", r.Status, r.Body)
		}
		if got, h := f.list(f.alice, ""); len(got) != 0 || h.Get("X-Total") != "0" {
			t.Errorf("pending after mark all = %v (X-Total %q)", ids(got), h.Get("X-Total"))
		}
		got, _ := f.list(f.alice, "state=done")
		if !cmp.Equal(ids(got), []int64{s.t4.ID, s.t3.ID, s.t2.ID, s.t1.ID}) {
			t.Errorf("done after mark all = %v", ids(got))
		}
		for _, td := range got {
			if td.State != "done" {
				t.Errorf("todo %d state %q", td.ID, td.State)
			}
		}
		if got, _ := f.list(f.bob, ""); !cmp.Equal(ids(got), []int64{s.t5.ID}) {
			t.Errorf("bob's pending todos = %v, want his t5 untouched", ids(got))
		}
		// Nothing left: still 204.
		if r := f.c.Send(http.MethodPost, "/todos/mark_as_done", f.alice.Token, nil); r.Status != http.StatusNoContent {
			t.Errorf("mark all again: %d", r.Status)
		}
	})
}
