package snippets_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

// personalJSON is the PersonalSnippet entity as the tests read it.
type personalJSON struct {
	ID          int64    `json:"id"`
	Title       string   `json:"title"`
	FileName    string   `json:"file_name"`
	Description string   `json:"description"`
	Author      userJSON `json:"author"`
	UpdatedAt   string   `json:"updated_at"`
	CreatedAt   string   `json:"created_at"`
	ProjectID   *int64   `json:"project_id"`
	WebURL      string   `json:"web_url"`
	RawURL      string   `json:"raw_url"`
}

func personalPath(id int64, suffix string) string { return fmt.Sprintf("/snippets/%d%s", id, suffix) }

// personal creates a personal snippet expecting 201; extra are more
// parameters (visibility among them).
func (s *server) personal(token, title string, extra ...string) personalJSON {
	s.T.Helper()
	var out personalJSON
	body := apptest.Form(append([]string{"title", title, "file_name", "a.rb", "content", "puts '" + title + "'\n"}, extra...)...)
	s.Expect(201, "POST", "/snippets", token, body).Decode(s.T, &out)
	return out
}

func personalIDs(list []personalJSON) []int64 {
	out := make([]int64, 0, len(list))
	for _, sn := range list {
		out = append(out, sn.ID)
	}
	return out
}

func TestPersonalCreateGetRaw(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	alice := s.person("alice")

	content := "#!/bin/sh\necho 'ünïcode' \"quotes\"\n\n\ttabbed\n"
	created := s.Expect(201, "POST", "/snippets", alice.token, map[string]any{
		"title": "  Hello  ", "file_name": "hello.sh", "content": content, "description": "says hi",
	})
	wantKeys := []string{"author", "created_at", "description", "file_name", "id", "project_id", "raw_url",
		"title", "updated_at", "web_url"}
	if got := keys(t, created.Body); !slices.Equal(got, wantKeys) {
		t.Errorf("created keys %v, want %v", got, wantKeys)
	}
	if !strings.Contains(string(created.Body), `"project_id":null`) {
		t.Errorf("project_id not null: %s", created.Body)
	}
	var sn personalJSON
	created.Decode(t, &sn)
	if sn.ID <= 0 || sn.Title != "Hello" || sn.FileName != "hello.sh" || sn.Description != "says hi" ||
		sn.ProjectID != nil || sn.Author.ID != alice.id || sn.Author.Username != "alice" {
		t.Errorf("created %+v", sn)
	}
	if want := fmt.Sprintf("%s/snippets/%d", s.URL, sn.ID); sn.WebURL != want || sn.RawURL != want+"/raw" {
		t.Errorf("web_url %s raw_url %s, want %s(/raw)", sn.WebURL, sn.RawURL, want)
	}
	if !msTime.MatchString(sn.CreatedAt) || sn.UpdatedAt != sn.CreatedAt {
		t.Errorf("times %s %s", sn.CreatedAt, sn.UpdatedAt)
	}
	if got := s.Expect(200, "GET", personalPath(sn.ID, ""), alice.token, nil).Body; !apptest.JSONEqual(got, created.Body) {
		t.Errorf("GET = %s, want %s", got, created.Body)
	}
	resp, raw := s.Do(t, "GET", personalPath(sn.ID, "/raw"), alice.token, nil)
	if resp.StatusCode != 200 || string(raw) != content {
		t.Errorf("raw: %d %q, want %q", resp.StatusCode, raw, content)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/plain" {
		t.Errorf("raw Content-Type %q, want text/plain", ct)
	}

	// GitLab 9.x's default visibility is internal: another user reads it,
	// an anonymous caller does not.
	bob := s.person("bob")
	s.Expect(200, "GET", personalPath(sn.ID, ""), bob.token, nil)
	s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "GET", personalPath(sn.ID, ""), "", nil)

	// Missing and malformed IDs are the snippet's 404.
	for _, path := range []string{personalPath(sn.ID+100, ""), personalPath(sn.ID+100, "/raw"), "/snippets/abc", "/snippets/-1", "/snippets/0/raw"} {
		s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "GET", path, alice.token, nil)
	}

	// Personal and project snippets share ids but not routes.
	pid := s.project("proj", "public")
	ps := s.create(s.RootToken, pid, "project one", "public")
	for _, path := range []string{personalPath(ps.ID, ""), personalPath(ps.ID, "/raw")} {
		s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "GET", path, s.RootToken, nil)
	}
	s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "PUT", personalPath(ps.ID, ""), s.RootToken, apptest.Form("title", "x"))
	s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "DELETE", personalPath(ps.ID, ""), s.RootToken, nil)
	s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "GET", snippetPath(pid, sn.ID, ""), s.RootToken, nil)
	var own []personalJSON
	s.Expect(200, "GET", "/snippets", s.RootToken, nil).Decode(t, &own)
	if len(own) != 0 {
		t.Errorf("root's personal snippets include project ones: %+v", own)
	}
	s.Expect(200, "GET", snippetPath(pid, ps.ID, ""), s.RootToken, nil)
}

// TestPersonalVisibility reads, lists, changes and deletes the private,
// internal and public personal snippets of one author as every kind of
// caller.
func TestPersonalVisibility(t *testing.T) {
	t.Parallel()
	eachDriver(t, testPersonalVisibility)
}

func testPersonalVisibility(t *testing.T, s *server) {
	author := s.person("author")
	other := s.person("other")
	external := s.person("external", "external", "true")
	admin := s.person("boss", "admin", "true")
	made := map[string]int64{}
	for _, vis := range []string{"private", "internal", "public"} {
		made[vis] = s.personal(author.token, vis+" one", "visibility", vis).ID
	}
	mine := s.personal(other.token, "other's", "visibility", "public").ID
	// External users read what is public but write no personal snippets.
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", "/snippets", external.token,
		apptest.Form("title", "t", "file_name", "f", "content", "c"))

	all := []string{"private", "internal", "public"}
	for _, c := range []struct {
		name, token string
		sees        []string
	}{
		{"author", author.token, all},
		{"admin", admin.token, all},
		{"other user", other.token, []string{"internal", "public"}},
		{"external user", external.token, []string{"public"}},
		{"anonymous", "", []string{"public"}},
	} {
		for _, vis := range all {
			id := made[vis]
			what := fmt.Sprintf("%s on the %s snippet", c.name, vis)
			if !slices.Contains(c.sees, vis) {
				const gone = `{"message":"404 Snippet Not Found"}`
				s.ExpectBody(404, gone, "GET", personalPath(id, ""), c.token, nil)
				s.ExpectBody(404, gone, "GET", personalPath(id, "/raw"), c.token, nil)
				if c.token != "" {
					s.ExpectBody(404, gone, "PUT", personalPath(id, ""), c.token, apptest.Form("title", "stolen"))
					s.ExpectBody(404, gone, "DELETE", personalPath(id, ""), c.token, nil)
				}
				continue
			}
			var got personalJSON
			s.Expect(200, "GET", personalPath(id, ""), c.token, nil).Decode(t, &got)
			if got.ID != id || got.Author.ID != author.id {
				t.Errorf("%s: read %+v", what, got)
			}
			if raw := s.raw(personalPath(id, "/raw"), c.token); raw != "puts '"+vis+" one'\n" {
				t.Errorf("%s: raw %q", what, raw)
			}
			// Readers who are neither the author nor an administrator may
			// not change it.
			if c.name != "author" && c.name != "admin" && c.token != "" {
				s.ExpectBody(403, `{"message":"403 Forbidden"}`, "PUT", personalPath(id, ""), c.token, apptest.Form("title", "stolen"))
				s.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", personalPath(id, ""), c.token, nil)
			}
		}
	}
	// Anonymous callers list nothing and write nothing.
	const unauthorized = `{"message":"401 Unauthorized"}`
	for _, r := range []struct{ method, path string }{{"GET", "/snippets"}, {"GET", "/snippets/public"},
		{"POST", "/snippets"}, {"PUT", personalPath(made["public"], "")}, {"DELETE", personalPath(made["public"], "")},
		{"GET", personalPath(made["public"], "/user_agent_detail")}} {
		s.ExpectBody(401, unauthorized, r.method, r.path, "", apptest.Form("title", "t"))
	}
	// Nothing refused above changed anything.
	for vis, id := range made {
		var got personalJSON
		s.Expect(200, "GET", personalPath(id, ""), author.token, nil).Decode(t, &got)
		if got.Title != vis+" one" {
			t.Errorf("%s snippet changed: %+v", vis, got)
		}
	}

	// GET /snippets is the caller's own, every visibility, newest first;
	// GET /snippets/public everyone's public ones, whoever asks.
	for _, c := range []struct {
		name, token string
		own, public []int64
	}{
		{"author", author.token, []int64{made["public"], made["internal"], made["private"]}, []int64{mine, made["public"]}},
		{"other user", other.token, []int64{mine}, []int64{mine, made["public"]}},
		{"external user", external.token, []int64{}, []int64{mine, made["public"]}},
		{"admin", admin.token, []int64{}, []int64{mine, made["public"]}},
	} {
		for path, want := range map[string][]int64{"/snippets": c.own, "/snippets/public": c.public} {
			var list []personalJSON
			resp := s.Expect(200, "GET", path, c.token, nil)
			resp.Decode(t, &list)
			if got := personalIDs(list); !slices.Equal(got, want) {
				t.Errorf("%s: %s = %v, want %v", c.name, path, got, want)
			}
			if total := resp.Header.Get("X-Total"); total != fmt.Sprint(len(want)) {
				t.Errorf("%s: %s X-Total %s, want %d", c.name, path, total, len(want))
			}
		}
	}

	// An administrator changes and deletes someone else's private snippet.
	var edited personalJSON
	s.Expect(200, "PUT", personalPath(made["private"], ""), admin.token, apptest.Form("title", "moderated")).Decode(t, &edited)
	if edited.Title != "moderated" || edited.Author.ID != author.id {
		t.Errorf("admin edit: %+v", edited)
	}
	s.Expect(204, "DELETE", personalPath(made["private"], ""), admin.token, nil)
	s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "GET", personalPath(made["private"], ""), author.token, nil)
}

func TestPersonalValidation(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	alice := s.person("alice")
	post := func(want string, kv ...string) {
		t.Helper()
		s.ExpectBody(400, want, "POST", "/snippets", alice.token, apptest.Form(kv...))
	}
	post(`{"error":"title is missing, file_name is missing, content is missing"}`)
	post(`{"error":"content is missing"}`, "title", "t", "file_name", "f")
	post(`{"error":"title is missing"}`, "title", "  ", "file_name", "f", "content", "c")
	post(`{"error":"visibility does not have a valid value"}`, "title", "t", "file_name", "f", "content", "c", "visibility", "secret")
	post(`{"error":"title is missing, visibility does not have a valid value"}`, "file_name", "f", "content", "c", "visibility", "10")
	post(`{"message":{"title":["is too long (maximum is 255 characters)"]}}`,
		"title", strings.Repeat("é", 256), "file_name", "f", "content", "c")
	post(`{"message":{"file_name":["is too long (maximum is 255 characters)"]}}`,
		"title", "t", "file_name", strings.Repeat("f", 256), "content", "c")
	var list []personalJSON
	s.Expect(200, "GET", "/snippets", alice.token, nil).Decode(t, &list)
	if len(list) != 0 {
		t.Errorf("invalid creates left snippets: %+v", list)
	}

	sn := s.personal(alice.token, strings.Repeat("é", 255), "visibility", "private")
	put := func(want string, body url.Values) {
		t.Helper()
		s.ExpectBody(400, want, "PUT", personalPath(sn.ID, ""), alice.token, body)
	}
	put(`{"error":"title, file_name, content, description, visibility are missing, at least one parameter must be provided"}`, nil)
	put(`{"error":"visibility does not have a valid value"}`, apptest.Form("visibility", "secret"))
	put(`{"message":{"title":["can't be blank"]}}`, apptest.Form("title", " "))
	put(`{"message":{"content":["can't be blank"]}}`, apptest.Form("content", ""))
	// Who may not read the snippet learns nothing from its validation.
	bob := s.person("bob")
	s.ExpectBody(400, `{"error":"visibility does not have a valid value"}`, "PUT", personalPath(sn.ID, ""), bob.token,
		apptest.Form("visibility", "secret"))
	s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "PUT", personalPath(sn.ID, ""), bob.token, apptest.Form("title", " "))
	var got personalJSON
	s.Expect(200, "GET", personalPath(sn.ID, ""), alice.token, nil).Decode(t, &got)
	if got.Title != sn.Title || got.UpdatedAt != sn.UpdatedAt {
		t.Errorf("refused updates changed the snippet: %+v", got)
	}
}

func TestPersonalUpdateDelete(t *testing.T) {
	t.Parallel()
	eachDriver(t, testPersonalUpdateDelete)
}

func testPersonalUpdateDelete(t *testing.T, s *server) {
	alice := s.person("alice")
	sn := s.personal(alice.token, "draft", "visibility", "private", "description", "old")
	var got personalJSON
	s.Expect(200, "PUT", personalPath(sn.ID, ""), alice.token, map[string]any{
		"title": " final ", "file_name": "b.go", "content": "package main\n", "description": "new", "visibility": "public",
	}).Decode(t, &got)
	if got.ID != sn.ID || got.Title != "final" || got.FileName != "b.go" || got.Description != "new" ||
		got.CreatedAt != sn.CreatedAt || got.UpdatedAt < sn.UpdatedAt || got.ProjectID != nil {
		t.Errorf("updated %+v (was %+v)", got, sn)
	}
	if raw := s.raw(personalPath(sn.ID, "/raw"), ""); raw != "package main\n" {
		t.Errorf("raw after update %q", raw) // public now: anonymous reads it
	}
	// One parameter alone changes that one only.
	s.Expect(200, "PUT", personalPath(sn.ID, ""), alice.token, apptest.Form("description", "")).Decode(t, &got)
	if got.Description != "" || got.Title != "final" {
		t.Errorf("description-only update: %+v", got)
	}

	s.Expect(204, "DELETE", personalPath(sn.ID, ""), alice.token, nil)
	s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "GET", personalPath(sn.ID, ""), alice.token, nil)
	s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "DELETE", personalPath(sn.ID, ""), alice.token, nil)
	s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "PUT", personalPath(sn.ID, ""), alice.token, apptest.Form("title", "x"))
	s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "DELETE", "/snippets/abc", alice.token, nil)
}

func TestPersonalPagination(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	alice := s.person("alice")
	var made []int64
	for i := 0; i < 5; i++ {
		made = append([]int64{s.personal(alice.token, fmt.Sprint("s", i), "visibility", "public").ID}, made...)
	}
	s.personal(alice.token, "hidden", "visibility", "internal")
	for _, path := range []string{"/snippets/public", "/snippets"} {
		total, pages := "5", "3"
		if path == "/snippets" {
			total, pages = "6", "3"
		}
		for _, tc := range []struct {
			page       int
			want       []int64
			next, prev string
		}{{2, made[2:4], "3", "1"}, {3, made[4:5], "", "2"}} {
			if path == "/snippets" {
				// The newer internal one leads the author's own list.
				tc.want = append([]int64{}, made[tc.page*2-3:min(tc.page*2-1, 5)]...)
			}
			var list []personalJSON
			resp := s.Expect(200, "GET", fmt.Sprintf("%s?per_page=2&page=%d", path, tc.page), alice.token, nil)
			resp.Decode(t, &list)
			if got := personalIDs(list); !slices.Equal(got, tc.want) {
				t.Errorf("%s page %d: %v, want %v", path, tc.page, got, tc.want)
			}
			h := resp.Header
			if h.Get("X-Total") != total || h.Get("X-Total-Pages") != pages || h.Get("X-Per-Page") != "2" ||
				h.Get("X-Page") != fmt.Sprint(tc.page) {
				t.Errorf("%s page %d headers: %v", path, tc.page, h)
			}
			if !strings.Contains(h.Get("Link"), `rel="last"`) || !strings.Contains(h.Get("Link"), s.URL+"/api/v4"+path) {
				t.Errorf("%s page %d Link: %q", path, tc.page, h.Get("Link"))
			}
		}
	}
	s.ExpectBody(400, `{"error":"page is invalid"}`, "GET", "/snippets?page=x", alice.token, nil)
}

func TestPersonalUserAgentDetail(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	alice := s.person("alice")
	resp, data := s.withAgent("POST", "/snippets", alice.token, "python-gitlab/3.12",
		apptest.Form("title", "t", "file_name", "f", "content", "c", "visibility", "private"))
	if resp.StatusCode != 201 {
		t.Fatalf("create: %d %s", resp.StatusCode, data)
	}
	var sn personalJSON
	apptest.Reply{Body: data}.Decode(t, &sn)
	path := personalPath(sn.ID, "/user_agent_detail")
	s.ExpectBody(200, `{"user_agent":"python-gitlab/3.12","ip_address":"127.0.0.1","akismet_submitted":false}`, "GET", path, s.RootToken, nil)
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "GET", path, alice.token, nil)
	s.ExpectBody(401, `{"message":"401 Unauthorized"}`, "GET", path, "", nil)
	s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "GET", personalPath(sn.ID+100, "/user_agent_detail"), s.RootToken, nil)
}
