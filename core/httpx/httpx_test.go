package httpx_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// fakeAuth knows two tokens: "admin-secret" (admin) and "user-secret".
type fakeAuth struct{}

var (
	adminUser = &domain.User{ID: 1, Username: "root", Admin: true, State: domain.UserActive}
	plainUser = &domain.User{ID: 2, Username: "alice", State: domain.UserActive}
)

func (fakeAuth) Token(_ context.Context, secret string) (*domain.Caller, error) {
	switch secret {
	case "admin-secret":
		return &domain.Caller{User: adminUser, Token: &domain.Token{Scopes: []string{"api"}}, Secret: secret}, nil
	case "user-secret":
		return &domain.Caller{User: plainUser, Token: &domain.Token{Scopes: []string{"api"}}, Secret: secret}, nil
	case "readonly-secret":
		return &domain.Caller{User: plainUser, Token: &domain.Token{Scopes: []string{"read_user"}}, Secret: secret}, nil
	}
	return nil, core.Unauthenticated()
}

func (fakeAuth) Password(context.Context, string, string) (*domain.Caller, error) {
	return nil, core.Unauthenticated()
}

func (fakeAuth) Sudo(_ context.Context, c *domain.Caller, ref string) (*domain.Caller, error) {
	if !c.IsAdmin() {
		return nil, core.Forbidden("Must be admin to use sudo")
	}
	if ref == "alice" || ref == "2" {
		return &domain.Caller{User: plainUser, Token: c.Token, Sudoer: c.User}, nil
	}
	return nil, core.ErrNotFound
}

type decoded struct {
	Title  string     `param:"title,required"`
	Count  *int       `param:"count"`
	Flag   *bool      `param:"flag"`
	Labels []string   `param:"labels"`
	IDs    []int64    `param:"iids"`
	When   *time.Time `param:"when"`
	Nested []struct {
		Action string `json:"action"`
	} `param:"actions"`
}

func newRouter(t *testing.T, extra ...httpx.Routes) (*httpx.Router, *observer.ObservedLogs) {
	t.Helper()
	obs, logs := observer.New(zapcore.DebugLevel)
	routes := httpx.Routes{Module: "test", Routes: []httpx.Route{
		{Method: http.MethodPost, Pattern: "/echo", Handle: func(w http.ResponseWriter, r *http.Request) error {
			var in decoded
			if err := httpx.Decode(r, &in); err != nil {
				return err
			}
			return httpx.Created(w, in)
		}},
		{Method: http.MethodGet, Pattern: "/projects/{id}/files/{path}", Handle: func(w http.ResponseWriter, r *http.Request) error {
			ref, err := httpx.RefParam(r, "id")
			if err != nil {
				return err
			}
			p, err := httpx.PathParam(r, "path")
			if err != nil {
				return err
			}
			return httpx.OK(w, map[string]any{"id": ref.ID, "path": ref.Path, "file": p})
		}},
		{Method: http.MethodGet, Pattern: "/items", Handle: func(w http.ResponseWriter, r *http.Request) error {
			pg, err := httpx.PageOf(r)
			if err != nil {
				return err
			}
			return httpx.Paginated(w, r, []int{}, 95, pg)
		}},
		{Method: http.MethodGet, Pattern: "/me", Handle: func(w http.ResponseWriter, r *http.Request) error {
			c, err := httpx.RequireUser(r)
			if err != nil {
				return err
			}
			return httpx.OK(w, map[string]any{"username": c.User.Username, "sudo": c.Sudoer != nil})
		}},
		{Method: http.MethodGet, Pattern: "/user", Handle: func(w http.ResponseWriter, r *http.Request) error {
			c, err := httpx.RequireUser(r)
			if err != nil {
				return err
			}
			return httpx.OK(w, map[string]any{"username": c.User.Username})
		}},
		{Method: http.MethodGet, Pattern: "/admin", Handle: func(w http.ResponseWriter, r *http.Request) error {
			if _, err := httpx.RequireAdmin(r); err != nil {
				return err
			}
			return httpx.OK(w, true)
		}},
		{Method: http.MethodGet, Pattern: "/panic", Handle: func(http.ResponseWriter, *http.Request) error {
			panic("boom")
		}},
		{Method: http.MethodGet, Pattern: "/fail", Handle: func(http.ResponseWriter, *http.Request) error {
			return context.DeadlineExceeded
		}},
		{Method: http.MethodGet, Pattern: "/errors/{kind}", Handle: func(w http.ResponseWriter, r *http.Request) error {
			kind, _ := httpx.PathParam(r, "kind")
			return map[string]error{
				"notfound":   core.NotFound("Project"),
				"fields":     core.FieldInvalid("email", "has already been taken"),
				"forbidden":  core.Forbidden("reason"),
				"conflict":   core.Conflict("Email has already been taken"),
				"notallowed": core.NotAllowed("Branch cannot be merged"),
				"notmod":     core.ErrNotModified,
				"stale":      core.ErrStale,
				"busy":       fmt.Errorf("read file: %w", core.Unavailable(errors.New("git slots taken"))),
			}[kind]
		}},
	}}
	rt, err := httpx.NewRouter(httpx.RouterParams{
		Options: httpx.Options{ExternalURL: "https://git.example.com/", MaxBodyBytes: 1024, MaxJSONDepth: 4},
		Logger:  zap.New(obs),
		Auth:    fakeAuth{},
		Routes:  append([]httpx.Routes{routes}, extra...),
	})
	if err != nil {
		t.Fatal(err)
	}
	return rt, logs
}

func serve(rt http.Handler, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	rt.ServeHTTP(rec, req)
	return rec
}

func body(t *testing.T, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("body %q: %v", rec.Body.String(), err)
	}
	return m
}

func TestParamsFromEverySource(t *testing.T) {
	rt, _ := newRouter(t)
	want := func(t *testing.T, rec *httptest.ResponseRecorder) {
		t.Helper()
		if rec.Code != http.StatusCreated {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
			t.Fatalf("content type %q", ct)
		}
		m := body(t, rec)
		if m["Title"] != "hello" || m["Count"] != float64(3) || m["Flag"] != true {
			t.Fatalf("decoded %v", m)
		}
		if got := m["Labels"].([]any); len(got) != 2 || got[1] != "b" {
			t.Fatalf("labels %v", got)
		}
		if got := m["IDs"].([]any); len(got) != 2 || got[0] != float64(1) {
			t.Fatalf("iids %v", got)
		}
	}
	t.Run("query", func(t *testing.T) {
		req := httptest.NewRequest("POST", "/api/v4/echo?title=hello&count=3&flag=1&labels=a,b&iids[]=1&iids[]=2", nil)
		want(t, serve(rt, req))
	})
	t.Run("form", func(t *testing.T) {
		form := url.Values{"title": {"hello"}, "count": {"3"}, "flag": {"true"}, "labels[]": {"a", "b"}, "iids[]": {"1", "2"}}
		req := httptest.NewRequest("POST", "/api/v4/echo", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		want(t, serve(rt, req))
	})
	t.Run("multipart", func(t *testing.T) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		for k, vs := range map[string][]string{"title": {"hello"}, "count": {"3"}, "flag": {"t"}, "labels": {"a,b"}, "iids[]": {"1", "2"}} {
			for _, v := range vs {
				_ = mw.WriteField(k, v)
			}
		}
		_ = mw.Close()
		req := httptest.NewRequest("POST", "/api/v4/echo", &buf)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		want(t, serve(rt, req))
	})
	t.Run("json", func(t *testing.T) {
		req := httptest.NewRequest("POST", "/api/v4/echo", strings.NewReader(`{"title":"hello","count":3,"flag":true,"labels":["a","b"],"iids":[1,2],"actions":[{"action":"create"}]}`))
		req.Header.Set("Content-Type", "application/json")
		rec := serve(rt, req)
		want(t, rec)
		if a := body(t, rec)["Nested"].([]any); a[0].(map[string]any)["action"] != "create" {
			t.Fatalf("nested %v", a)
		}
	})
}

func TestParamErrors(t *testing.T) {
	rt, _ := newRouter(t)
	rec := serve(rt, httptest.NewRequest("POST", "/api/v4/echo?count=abc&flag=maybe", nil))
	if rec.Code != 400 || body(t, rec)["error"] != "title is missing, count is invalid, flag is invalid" {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	// No text parameter carries a NUL byte, from the query, a form or JSON.
	if rec := serve(rt, httptest.NewRequest("POST", "/api/v4/echo?title=a%00b", nil)); rec.Code != 400 || body(t, rec)["error"] != "title is invalid" {
		t.Fatalf("NUL in the query: %d %s", rec.Code, rec.Body)
	}
	for _, js := range []string{`{"title":"t","labels":"a\u0000b"}`, `{"title":"a\u0000b"}`} {
		req := httptest.NewRequest("POST", "/api/v4/echo", strings.NewReader(js))
		req.Header.Set("Content-Type", "application/json")
		if rec := serve(rt, req); rec.Code != 400 {
			t.Fatalf("NUL in JSON %s: %d %s", js, rec.Code, rec.Body)
		}
	}
	req := httptest.NewRequest("POST", "/api/v4/echo", strings.NewReader(`{"title":[[[[[["deep"]]]]]]}`))
	req.Header.Set("Content-Type", "application/json")
	if rec := serve(rt, req); rec.Code != 400 {
		t.Fatalf("deep JSON: %d %s", rec.Code, rec.Body)
	}
	req = httptest.NewRequest("POST", "/api/v4/echo", strings.NewReader(`{"title":`))
	req.Header.Set("Content-Type", "application/json")
	if rec := serve(rt, req); rec.Code != 400 {
		t.Fatalf("broken JSON: %d %s", rec.Code, rec.Body)
	}
	req = httptest.NewRequest("POST", "/api/v4/echo", strings.NewReader(`{"title":"`+strings.Repeat("x", 2000)+`"}`))
	req.Header.Set("Content-Type", "application/json")
	if rec := serve(rt, req); rec.Code != 413 || body(t, rec)["message"] != "413 Request Entity Too Large" {
		t.Fatalf("large body: %d %s", rec.Code, rec.Body)
	}
	// A body without Content-Length is capped while it is read.
	req = httptest.NewRequest("POST", "/api/v4/echo", strings.NewReader("title="+strings.Repeat("x", 2000)))
	req.ContentLength = -1
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if rec := serve(rt, req); rec.Code != 413 {
		t.Fatalf("streamed large body: %d %s", rec.Code, rec.Body)
	}
}

// TestBlankParams: JSON null and empty form values of numbers, booleans
// and times are "none", as Grape coerces them to nil (python-gitlab sends
// {"expires_at": null}; "milestone_id=" unassigns): an integer becomes 0,
// other pointers stay nil, and a required one is missing.
func TestBlankParams(t *testing.T) {
	rt, _ := newRouter(t)
	for _, c := range []struct{ ct, body string }{
		{"application/json", `{"title":"t","count":null,"flag":null,"when":null,"iids":null}`},
		{"application/x-www-form-urlencoded", "title=t&count=&flag=&when=&iids="},
	} {
		req := httptest.NewRequest("POST", "/api/v4/echo", strings.NewReader(c.body))
		req.Header.Set("Content-Type", c.ct)
		rec := serve(rt, req)
		got := body(t, rec)
		if rec.Code != 201 || got["Count"] != float64(0) || got["Flag"] != nil || got["When"] != nil {
			t.Errorf("%s %s: %d %s", c.ct, c.body, rec.Code, rec.Body)
		}
		if ids, _ := got["IDs"].([]any); len(ids) != 0 {
			t.Errorf("%s: iids %v, want none", c.ct, got["IDs"])
		}
	}
	req := httptest.NewRequest("POST", "/api/v4/echo", strings.NewReader(`{"title":null}`))
	req.Header.Set("Content-Type", "application/json")
	if rec := serve(rt, req); rec.Code != 400 || body(t, rec)["error"] != "title is missing" {
		t.Fatalf("null required title: %d %s", rec.Code, rec.Body)
	}
	// A value that is there but wrong is still invalid.
	if rec := serve(rt, httptest.NewRequest("POST", "/api/v4/echo?title=t&count=%20x", nil)); rec.Code != 400 {
		t.Fatalf("count=' x': %d %s", rec.Code, rec.Body)
	}
}

func TestErrorShapes(t *testing.T) {
	rt, logs := newRouter(t)
	cases := []struct {
		path   string
		status int
		body   string
	}{
		{"/api/v4/errors/notfound", 404, `{"message":"404 Project Not Found"}`},
		{"/api/v4/errors/fields", 400, `{"message":{"email":["has already been taken"]}}`},
		{"/api/v4/errors/forbidden", 403, `{"message":"403 Forbidden - reason"}`},
		{"/api/v4/errors/conflict", 409, `{"message":"Email has already been taken"}`},
		{"/api/v4/errors/notallowed", 405, `{"message":"Branch cannot be merged"}`},
		{"/api/v4/errors/stale", 409, `{"message":"409 Conflict"}`},
		{"/api/v4/errors/notmod", 304, ``},
		{"/api/v4/errors/busy", 503, `{"message":"503 Service Unavailable"}`},
		{"/api/v4/nope", 404, `{"error":"404 Not Found"}`},
		{"/api/v4/me", 401, `{"message":"401 Unauthorized"}`},
		{"/api/v4/fail", 500, `{"message":"500 Internal Server Error"}`},
		{"/api/v4/panic", 500, `{"message":"500 Internal Server Error"}`},
	}
	for _, c := range cases {
		rec := serve(rt, httptest.NewRequest("GET", c.path, nil))
		if rec.Code != c.status || strings.TrimSpace(rec.Body.String()) != c.body {
			t.Errorf("%s: %d %s, want %d %s", c.path, rec.Code, rec.Body, c.status, c.body)
		}
		if c.status != 304 && rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s: content type %q", c.path, rec.Header().Get("Content-Type"))
		}
		if rec.Header().Get("X-Request-Id") == "" {
			t.Errorf("%s: no request ID", c.path)
		}
		if got, want := rec.Header().Get("Retry-After"), map[bool]string{true: "1"}[c.status == 503]; got != want {
			t.Errorf("%s: Retry-After %q, want %q", c.path, got, want)
		}
	}
	if logs.FilterMessage("panic").Len() != 1 || logs.FilterMessage("request failed").Len() != 1 {
		t.Fatalf("500s must be logged: %v", logs.All())
	}
}

func TestEncodedPathParams(t *testing.T) {
	rt, _ := newRouter(t)
	rec := serve(rt, httptest.NewRequest("GET", "/api/v4/projects/group%2Fsub%2Fmy%2Eproject/files/dir%2Ffile%2Etxt", nil))
	m := body(t, rec)
	if m["path"] != "group/sub/my.project" || m["file"] != "dir/file.txt" {
		t.Fatalf("%d %v", rec.Code, m)
	}
	rec = serve(rt, httptest.NewRequest("GET", "/api/v4/projects/42/files/a%25b", nil))
	if m := body(t, rec); m["id"] != float64(42) || m["file"] != "a%b" {
		t.Fatalf("%d %v", rec.Code, m)
	}
}

func TestPaginationHeaders(t *testing.T) {
	rt, _ := newRouter(t)
	rec := serve(rt, httptest.NewRequest("GET", "/api/v4/items?page=2&per_page=10&search=x&private_token=user-secret", nil))
	h := rec.Header()
	for k, v := range map[string]string{"X-Total": "95", "X-Total-Pages": "10", "X-Per-Page": "10", "X-Page": "2", "X-Next-Page": "3", "X-Prev-Page": "1"} {
		if h.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, h.Get(k), v)
		}
	}
	link := h.Get("Link")
	for _, want := range []string{
		`<https://git.example.com/api/v4/items?page=1&per_page=10&search=x>; rel="prev"`,
		`<https://git.example.com/api/v4/items?page=3&per_page=10&search=x>; rel="next"`,
		`rel="first"`, `<https://git.example.com/api/v4/items?page=10&per_page=10&search=x>; rel="last"`,
	} {
		if !strings.Contains(link, want) {
			t.Errorf("Link %q lacks %q", link, want)
		}
	}
	if strings.Contains(link, "user-secret") {
		t.Error("Link leaks the token")
	}
	rec = serve(rt, httptest.NewRequest("GET", "/api/v4/items?page=10&per_page=500", nil))
	if rec.Header().Get("X-Per-Page") != "100" || rec.Header().Get("X-Next-Page") != "" || strings.Contains(rec.Header().Get("Link"), `rel="next"`) {
		t.Errorf("last page headers: %v", rec.Header())
	}
	if _, ok := rec.Header()["X-Next-Page"]; !ok {
		t.Error("X-Next-Page must be present even when empty")
	}
	if rec := serve(rt, httptest.NewRequest("GET", "/api/v4/items?page=abc", nil)); rec.Code != 400 {
		t.Errorf("page=abc: %d", rec.Code)
	}
}

func TestAuthentication(t *testing.T) {
	rt, _ := newRouter(t)
	get := func(path string, hdr map[string]string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", path, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		return serve(rt, req)
	}
	for name, rec := range map[string]*httptest.ResponseRecorder{
		"PRIVATE-TOKEN": get("/api/v4/me", map[string]string{"PRIVATE-TOKEN": "user-secret"}),
		"private_token": get("/api/v4/me?private_token=user-secret", nil),
		"Bearer":        get("/api/v4/me", map[string]string{"Authorization": "Bearer user-secret"}),
		"access_token":  get("/api/v4/me?access_token=user-secret", nil),
	} {
		if rec.Code != 200 || body(t, rec)["username"] != "alice" {
			t.Errorf("%s: %d %s", name, rec.Code, rec.Body)
		}
	}
	if rec := get("/api/v4/items", map[string]string{"PRIVATE-TOKEN": "wrong"}); rec.Code != 401 {
		t.Errorf("bad token on a public route: %d", rec.Code)
	}
	if rec := get("/api/v4/admin", map[string]string{"PRIVATE-TOKEN": "user-secret"}); rec.Code != 403 {
		t.Errorf("non-admin: %d", rec.Code)
	}
	// sudo: admins only, by header or parameter; unknown users are 404.
	if rec := get("/api/v4/me?sudo=alice", map[string]string{"PRIVATE-TOKEN": "admin-secret"}); rec.Code != 200 || body(t, rec)["sudo"] != true || body(t, rec)["username"] != "alice" {
		t.Errorf("sudo param: %d %s", rec.Code, rec.Body)
	}
	if rec := get("/api/v4/me", map[string]string{"PRIVATE-TOKEN": "admin-secret", "Sudo": "2"}); rec.Code != 200 || body(t, rec)["username"] != "alice" {
		t.Errorf("sudo header: %d %s", rec.Code, rec.Body)
	}
	if rec := get("/api/v4/me?sudo=root", map[string]string{"PRIVATE-TOKEN": "user-secret"}); rec.Code != 403 || body(t, rec)["message"] != "403 Forbidden - Must be admin to use sudo" {
		t.Errorf("sudo by non-admin: %d %s", rec.Code, rec.Body)
	}
	if rec := get("/api/v4/me?sudo=ghost", map[string]string{"PRIVATE-TOKEN": "admin-secret"}); rec.Code != 404 || body(t, rec)["message"] != "404 User Not Found" {
		t.Errorf("sudo unknown: %d %s", rec.Code, rec.Body)
	}
	if rec := get("/api/v4/me?sudo=alice", nil); rec.Code != 401 {
		t.Errorf("sudo anonymous: %d %s", rec.Code, rec.Body)
	}
	// read_user tokens read user endpoints only.
	if rec := get("/api/v4/user", map[string]string{"PRIVATE-TOKEN": "readonly-secret"}); rec.Code != 200 {
		t.Errorf("read_user on /user: %d", rec.Code)
	}
	if rec := get("/api/v4/items", map[string]string{"PRIVATE-TOKEN": "readonly-secret"}); rec.Code != 403 {
		t.Errorf("read_user elsewhere: %d", rec.Code)
	}
}

func TestAccessLogNeverPrintsSecrets(t *testing.T) {
	rt, logs := newRouter(t)
	req := httptest.NewRequest("GET", "/api/v4/me?private_token=user-secret&password=hunter2&x=1", nil)
	req.Header.Set("Authorization", "Bearer user-secret")
	serve(rt, req)
	entries := logs.FilterMessage("request").All()
	if len(entries) != 1 {
		t.Fatalf("want one access log entry, got %d", len(entries))
	}
	raw, _ := json.Marshal(entries[0].ContextMap())
	if strings.Contains(string(raw), "user-secret") || strings.Contains(string(raw), "hunter2") {
		t.Fatalf("secret in log: %s", raw)
	}
	if m := entries[0].ContextMap(); m["status"] != int64(200) || m["user_id"] != int64(2) {
		t.Fatalf("log fields: %v", m)
	}
}

func TestDuplicateRoutesFail(t *testing.T) {
	dup := httpx.Routes{Module: "other", Routes: []httpx.Route{{Method: "GET", Pattern: "/items", Handle: func(http.ResponseWriter, *http.Request) error { return nil }}}}
	_, err := httpx.NewRouter(httpx.RouterParams{Logger: zap.NewNop(), Routes: []httpx.Routes{dup, dup}})
	if err == nil || !strings.Contains(err.Error(), "GET /api/v4/items") {
		t.Fatalf("want duplicate route error, got %v", err)
	}
}

func TestTimeFormat(t *testing.T) {
	ts := time.Date(2017, 6, 1, 12, 0, 0, 123456789, time.FixedZone("x", 3600))
	b, _ := json.Marshal(map[string]any{"t": httpx.TimeOf(ts), "d": httpx.Date{Time: ts}, "n": httpx.TimePtr(nil)})
	if string(b) != `{"d":"2017-06-01","n":null,"t":"2017-06-01T11:00:00.123Z"}` {
		t.Fatal(string(b))
	}
}
