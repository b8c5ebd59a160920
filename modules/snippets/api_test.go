package snippets_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

var msTime = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

func TestCreateGetRaw(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	rep := s.person("rep")
	pid := s.project("proj", "private")
	s.member(pid, rep, domain.Reporter)

	code := "#!/bin/sh\necho 'ünïcode' \"quotes\"\n\n\ttabbed\n"
	created := s.Expect(201, "POST", snippetsPath(pid), rep.token, map[string]any{
		"title": "  Hello  ", "file_name": "hello.sh", "code": code, "visibility": "internal", "description": "says hi",
	})
	data := created.Body
	wantKeys := []string{"author", "created_at", "description", "expires_at", "file_name", "id", "project_id",
		"title", "updated_at", "visibility", "web_url"}
	if got := keys(t, data); !slices.Equal(got, wantKeys) {
		t.Errorf("created keys %v, want %v", got, wantKeys)
	}
	var sn snippetJSON
	created.Decode(t, &sn)
	if sn.ID <= 0 || sn.Title != "Hello" || sn.FileName != "hello.sh" || sn.Description != "says hi" ||
		sn.Visibility != "internal" || sn.ProjectID != pid || sn.ExpiresAt != nil || sn.Author.Username != "rep" {
		t.Errorf("created %+v", sn)
	}
	if want := fmt.Sprintf("%s/root/proj/snippets/%d", s.URL, sn.ID); sn.WebURL != want {
		t.Errorf("web_url %s, want %s", sn.WebURL, want)
	}
	if !msTime.MatchString(sn.CreatedAt) || sn.UpdatedAt != sn.CreatedAt {
		t.Errorf("times %s %s", sn.CreatedAt, sn.UpdatedAt)
	}

	// GET answers what POST did, by numeric ID and by URL-encoded path.
	for _, path := range []string{snippetPath(pid, sn.ID, ""), fmt.Sprintf("/projects/root%%2Fproj/snippets/%d", sn.ID)} {
		got := s.Expect(200, "GET", path, rep.token, nil).Body
		if !apptest.JSONEqual(got, data) {
			t.Errorf("GET %s = %s, want %s", path, got, data)
		}
	}

	resp, raw := s.Do(t, "GET", snippetPath(pid, sn.ID, "/raw"), rep.token, nil)
	if resp.StatusCode != 200 || string(raw) != code {
		t.Errorf("raw: %d %q, want %q", resp.StatusCode, raw, code)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/plain" {
		t.Errorf("raw Content-Type %q, want text/plain", ct)
	}

	// Missing and malformed IDs are the snippet's 404, a missing project the project's.
	for _, path := range []string{snippetPath(pid, sn.ID+100, ""), snippetPath(pid, sn.ID+100, "/raw"),
		snippetsPath(pid) + "/abc", snippetsPath(pid) + "/-1"} {
		s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "GET", path, rep.token, nil)
	}
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "GET", snippetsPath(pid+100), s.RootToken, nil)
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", snippetsPath(pid+100), s.RootToken,
		apptest.Form("title", "t", "file_name", "f", "code", "c", "visibility", "public"))

	// A snippet is found through its own project only.
	other := s.project("other", "public")
	s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "GET", snippetPath(other, sn.ID, ""), s.RootToken, nil)
}

func TestCreatePermissions(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	guestP, rep, outsider := s.person("guest"), s.person("rep"), s.person("outsider")
	external := s.person("external", "external", "true")
	pid := s.project("proj", "public")
	s.member(pid, guestP, domain.Guest)
	s.member(pid, rep, domain.Reporter)
	body := apptest.Form("title", "t", "file_name", "f.txt", "code", "c", "visibility", "public")

	s.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", snippetsPath(pid), "", body)
	for _, p := range []person{guestP, outsider, external} {
		s.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", snippetsPath(pid), p.token, body)
	}
	s.create(rep.token, pid, "by reporter", "public")
	s.create(s.RootToken, pid, "by admin", "private")
	var list []snippetJSON
	s.Expect(200, "GET", snippetsPath(pid), s.RootToken, nil).Decode(t, &list)
	if len(list) != 2 {
		t.Errorf("refused creates left snippets: %+v", list)
	}
}

// TestContentAlias: go-gitlab and later GitLab name the code "content".
func TestContentAlias(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("proj", "private")
	var sn struct{ ID int64 }
	s.Expect(201, "POST", snippetsPath(pid), s.RootToken,
		apptest.Form("title", "t", "file_name", "f", "content", "first", "visibility", "public")).Decode(t, &sn)
	raw := fmt.Sprintf("%s/%d/raw", snippetsPath(pid), sn.ID)
	if got := s.raw(raw, s.RootToken); got != "first" {
		t.Fatalf("raw %q, want %q", got, "first")
	}
	s.Expect(200, "PUT", fmt.Sprintf("%s/%d", snippetsPath(pid), sn.ID), s.RootToken, apptest.Form("content", "second"))
	if got := s.raw(raw, s.RootToken); got != "second" {
		t.Fatalf("raw %q, want %q", got, "second")
	}
}

func TestCreateValidation(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("proj", "private")
	post := func(want string, kv ...string) {
		t.Helper()
		s.ExpectBody(400, want, "POST", snippetsPath(pid), s.RootToken, apptest.Form(kv...))
	}
	post(`{"error":"title is missing, file_name is missing, visibility is missing, code is missing"}`)
	post(`{"error":"code is missing"}`, "title", "t", "file_name", "f", "code", "", "visibility", "public")
	post(`{"error":"title is missing"}`, "title", "  ", "file_name", "f", "code", "c", "visibility", "public")
	post(`{"error":"visibility does not have a valid value"}`, "title", "t", "file_name", "f", "code", "c", "visibility", "secret")
	post(`{"error":"title is missing, visibility does not have a valid value"}`, "file_name", "f", "code", "c", "visibility", "10")
	post(`{"message":{"title":["is too long (maximum is 255 characters)"]}}`,
		"title", strings.Repeat("é", 256), "file_name", "f", "code", "c", "visibility", "public")
	post(`{"message":{"file_name":["is too long (maximum is 255 characters)"]}}`,
		"title", "t", "file_name", strings.Repeat("f", 256), "code", "c", "visibility", "public")
	var list []snippetJSON
	s.Expect(200, "GET", snippetsPath(pid), s.RootToken, nil).Decode(t, &list)
	if len(list) != 0 {
		t.Errorf("invalid creates left snippets: %+v", list)
	}
	// 255 characters are fine.
	s.create(s.RootToken, pid, strings.Repeat("é", 255), "public")
}

func TestUpdate(t *testing.T) {
	t.Parallel()
	eachDriver(t, testUpdate)
}

func testUpdate(t *testing.T, s *server) {
	author, rep, masterP, guestP, outsider := s.person("author"), s.person("rep"), s.person("master"), s.person("guest"), s.person("outsider")
	pid := s.project("proj", "public")
	s.member(pid, author, domain.Reporter)
	s.member(pid, rep, domain.Reporter)
	s.member(pid, masterP, domain.Master)
	s.member(pid, guestP, domain.Guest)
	sn := s.create(author.token, pid, "first", "public", "description", "d")
	path := snippetPath(pid, sn.ID, "")

	s.Advance(time.Minute)
	var got snippetJSON
	s.Expect(200, "PUT", path, author.token, apptest.Form("title", "second", "file_name", "b.go", "code", "package b\n",
		"description", "new", "visibility", "internal")).Decode(t, &got)
	if got.ID != sn.ID || got.Title != "second" || got.FileName != "b.go" || got.Description != "new" ||
		got.Visibility != "internal" || got.Author.ID != author.id || got.CreatedAt != sn.CreatedAt {
		t.Errorf("updated %+v", got)
	}
	if got.UpdatedAt <= sn.UpdatedAt || !msTime.MatchString(got.UpdatedAt) {
		t.Errorf("updated_at %s, was %s", got.UpdatedAt, sn.UpdatedAt)
	}
	if raw := s.raw(path+"/raw", author.token); raw != "package b\n" {
		t.Errorf("raw after update %q", raw)
	}
	// Now internal: anonymous callers lose it.
	s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "GET", path, "", nil)

	// One parameter is enough; the rest stays.
	s.Expect(200, "PUT", path, masterP.token, apptest.Form("description", "by master")).Decode(t, &got)
	if got.Description != "by master" || got.Title != "second" || got.Visibility != "internal" {
		t.Errorf("master's update %+v", got)
	}

	s.ExpectBody(401, `{"message":"401 Unauthorized"}`, "PUT", path, "", apptest.Form("title", "x"))
	for _, p := range []person{rep, guestP, outsider} {
		s.ExpectBody(403, `{"message":"403 Forbidden"}`, "PUT", path, p.token, apptest.Form("title", "x"))
	}
	s.ExpectBody(400, `{"error":"title, file_name, code, description, visibility are missing, at least one parameter must be provided"}`,
		"PUT", path, author.token, apptest.Form())
	s.ExpectBody(400, `{"error":"visibility does not have a valid value"}`, "PUT", path, author.token, apptest.Form("visibility", "everyone"))
	s.ExpectBody(400, `{"message":{"title":["can't be blank"]}}`, "PUT", path, author.token, apptest.Form("title", " "))
	s.ExpectBody(400, `{"message":{"content":["can't be blank"]}}`, "PUT", path, author.token, apptest.Form("code", ""))
	s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "PUT", snippetPath(pid, sn.ID+100, ""), author.token, apptest.Form("title", "x"))

	// A private snippet is hidden from the outsider: 404, not 403.
	s.Expect(200, "PUT", path, author.token, apptest.Form("visibility", "private"))
	s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "PUT", path, outsider.token, apptest.Form("title", "x"))

	s.Expect(200, "GET", path, author.token, nil).Decode(t, &got)
	if got.Title != "second" || got.Description != "by master" || got.Visibility != "private" {
		t.Errorf("refused updates changed the snippet: %+v", got)
	}
	if raw := s.raw(path+"/raw", author.token); raw != "package b\n" {
		t.Errorf("refused updates changed the content: %q", raw)
	}
}

func TestDelete(t *testing.T) {
	t.Parallel()
	eachDriver(t, testDelete)
}

func testDelete(t *testing.T, s *server) {
	author, rep, masterP, outsider := s.person("author"), s.person("rep"), s.person("master"), s.person("outsider")
	pid := s.project("proj", "public")
	s.member(pid, author, domain.Reporter)
	s.member(pid, rep, domain.Reporter)
	s.member(pid, masterP, domain.Master)
	mine := s.create(author.token, pid, "mine", "public")
	byMaster := s.create(author.token, pid, "for master", "public")
	hidden := s.create(author.token, pid, "hidden", "private")

	// Notes on the snippet go with it.
	ctx := context.Background()
	if err := s.Store.Notes().Create(ctx, &domain.Note{ProjectID: &pid, NoteableType: domain.TargetSnippet,
		NoteableID: mine.ID, AuthorID: rep.id, Body: "nice"}); err != nil {
		t.Fatal(err)
	}

	path := snippetPath(pid, mine.ID, "")
	s.ExpectBody(401, `{"message":"401 Unauthorized"}`, "DELETE", path, "", nil)
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", path, rep.token, nil)
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", path, outsider.token, nil)

	deleted := s.Expect(200, "DELETE", path, author.token, nil)
	var got snippetJSON
	deleted.Decode(t, &got)
	data := deleted.Body
	if got.ID != mine.ID || got.Title != "mine" || got.Author.ID != author.id {
		t.Errorf("deleted %s", data)
	}
	s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "GET", path, author.token, nil)
	if _, n, err := s.Store.Notes().List(ctx, domain.TargetSnippet, mine.ID, domain.Page{}); err != nil || n != 0 {
		t.Errorf("notes of the deleted snippet: %d, %v", n, err)
	}
	// Idempotent: 200 again, without a body.
	for _, p := range []string{path, snippetPath(pid, mine.ID+100, "")} {
		if r := s.Send("DELETE", p, author.token, nil); r.Status != 200 || len(r.Body) != 0 {
			t.Errorf("DELETE %s again: %d %q, want 200 with no body", p, r.Status, r.Body)
		}
	}

	// A master deletes anyone's.
	s.Expect(200, "DELETE", snippetPath(pid, byMaster.ID, ""), masterP.token, nil).Decode(t, &got)
	if got.ID != byMaster.ID {
		t.Errorf("master deleted %+v", got)
	}

	// A snippet the caller cannot see answers like a missing one, and stays.
	if r := s.Send("DELETE", snippetPath(pid, hidden.ID, ""), outsider.token, nil); r.Status != 200 || len(r.Body) != 0 {
		t.Errorf("DELETE hidden: %d %q", r.Status, r.Body)
	}
	s.Expect(200, "GET", snippetPath(pid, hidden.ID, ""), author.token, nil)

	// A missing project is still a 404.
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "DELETE", snippetPath(pid+100, hidden.ID, ""), author.token, nil)
}

func TestUserAgentDetail(t *testing.T) {
	t.Parallel()
	eachDriver(t, testUserAgentDetail)
}

func testUserAgentDetail(t *testing.T, s *server) {
	author, masterP := s.person("author"), s.person("master")
	pid := s.project("proj", "public")
	s.member(pid, author, domain.Reporter)
	s.member(pid, masterP, domain.Master)
	const agent = "python-gitlab/1.0 (hearth tests)"
	resp, data := s.withAgent("POST", snippetsPath(pid), author.token, agent,
		apptest.Form("title", "t", "file_name", "f", "code", "c", "visibility", "public"))
	if resp.StatusCode != 201 {
		t.Fatalf("create: %d %s", resp.StatusCode, data)
	}
	var sn snippetJSON
	apptest.Reply{Body: data}.Decode(t, &sn)
	path := snippetPath(pid, sn.ID, "/user_agent_detail")

	s.ExpectBody(200, `{"user_agent":"`+agent+`","ip_address":"127.0.0.1","akismet_submitted":false}`, "GET", path, s.RootToken, nil)
	s.ExpectBody(401, `{"message":"401 Unauthorized"}`, "GET", path, "", nil)
	for _, p := range []person{author, masterP} {
		s.ExpectBody(403, `{"message":"403 Forbidden"}`, "GET", path, p.token, nil)
	}
	s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "GET", snippetPath(pid, sn.ID+100, "/user_agent_detail"), s.RootToken, nil)

	// Editing does not change what was recorded at creation.
	resp, data = s.withAgent("PUT", snippetPath(pid, sn.ID, ""), author.token, "other-agent/2", apptest.Form("title", "u"))
	if resp.StatusCode != 200 {
		t.Fatalf("update: %d %s", resp.StatusCode, data)
	}
	s.ExpectBody(200, `{"user_agent":"`+agent+`","ip_address":"127.0.0.1","akismet_submitted":false}`, "GET", path, s.RootToken, nil)
}

// TestSnippetsDisabled: with snippets_enabled off every route answers the
// project's 404, even to masters and administrators.
func TestSnippetsDisabled(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	masterP := s.person("master")
	pid := s.project("proj", "public")
	s.member(pid, masterP, domain.Master)
	sn := s.create(masterP.token, pid, "before", "public")
	s.Expect(200, "PUT", fmt.Sprintf("/projects/%d", pid), s.RootToken, apptest.Form("snippets_enabled", "false"))

	body := apptest.Form("title", "t", "file_name", "f", "code", "c", "visibility", "public")
	for _, tok := range []string{"", masterP.token, s.RootToken} {
		for _, r := range []struct {
			method, path string
			body         url.Values
		}{
			{"GET", snippetsPath(pid), nil},
			{"GET", snippetPath(pid, sn.ID, ""), nil},
			{"GET", snippetPath(pid, sn.ID, "/raw"), nil},
			{"GET", snippetPath(pid, sn.ID, "/user_agent_detail"), nil},
		} {
			want := 404
			if strings.HasSuffix(r.path, "/user_agent_detail") && tok != s.RootToken {
				want = map[string]int{"": 401, masterP.token: 403}[tok] // administrators only, checked first
			}
			s.Expect(want, r.method, r.path, tok, r.body)
		}
		if tok == "" {
			continue
		}
		for _, r := range []struct {
			method, path string
			body         url.Values
		}{
			{"POST", snippetsPath(pid), body},
			{"PUT", snippetPath(pid, sn.ID, ""), apptest.Form("title", "x")},
			{"DELETE", snippetPath(pid, sn.ID, ""), nil},
		} {
			s.ExpectBody(404, `{"message":"404 Project Not Found"}`, r.method, r.path, tok, r.body)
		}
	}
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "GET", snippetPath(pid, sn.ID, ""), s.RootToken, nil)
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "GET", snippetsPath(pid), "", nil)

	// Turned back on, the snippet is still there.
	s.Expect(200, "PUT", fmt.Sprintf("/projects/%d", pid), s.RootToken, apptest.Form("snippets_enabled", "true"))
	s.Expect(200, "GET", snippetPath(pid, sn.ID, ""), "", nil)
}

func TestListPagination(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("proj", "public")
	var made []int64
	for i := 0; i < 5; i++ {
		made = append([]int64{s.create(s.RootToken, pid, fmt.Sprint("s", i), "public").ID}, made...)
	}
	for _, tc := range []struct {
		page       int
		want       []int64
		next, prev string
	}{{1, made[0:2], "2", ""}, {2, made[2:4], "3", "1"}, {3, made[4:5], "", "2"}} {
		var list []snippetJSON
		resp := s.Expect(200, "GET", fmt.Sprintf("%s?per_page=2&page=%d", snippetsPath(pid), tc.page), "", nil)
		resp.Decode(t, &list)
		if got := ids(list); !slices.Equal(got, tc.want) {
			t.Errorf("page %d: %v, want %v", tc.page, got, tc.want)
		}
		h := resp.Header
		if h.Get("X-Total") != "5" || h.Get("X-Total-Pages") != "3" || h.Get("X-Per-Page") != "2" ||
			h.Get("X-Page") != fmt.Sprint(tc.page) || h.Get("X-Next-Page") != tc.next || h.Get("X-Prev-Page") != tc.prev {
			t.Errorf("page %d headers: %v", tc.page, h)
		}
		if !strings.Contains(h.Get("Link"), `rel="last"`) {
			t.Errorf("page %d Link: %q", tc.page, h.Get("Link"))
		}
		if ct := h.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
	}
}

// TestRoutes pins the module's routes, each covered above.
func TestRoutes(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	var got []string
	for _, r := range s.Router.Routes() {
		if r.Module == "snippets" {
			got = append(got, r.Method+" "+r.Pattern)
		}
	}
	slices.Sort(got)
	want := []string{
		"DELETE /api/v4/projects/{id}/snippets/{snippet_id}",
		"GET /api/v4/projects/{id}/snippets",
		"GET /api/v4/projects/{id}/snippets/{snippet_id}",
		"GET /api/v4/projects/{id}/snippets/{snippet_id}/raw",
		"GET /api/v4/projects/{id}/snippets/{snippet_id}/user_agent_detail",
		"POST /api/v4/projects/{id}/snippets",
		"PUT /api/v4/projects/{id}/snippets/{snippet_id}",
		"DELETE /api/v4/snippets/{id}",
		"GET /api/v4/snippets",
		"GET /api/v4/snippets/public",
		"GET /api/v4/snippets/{id}",
		"GET /api/v4/snippets/{id}/raw",
		"GET /api/v4/snippets/{id}/user_agent_detail",
		"POST /api/v4/snippets",
		"PUT /api/v4/snippets/{id}",
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("routes %v, want %v", got, want)
	}
}
