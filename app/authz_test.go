package app_test

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

// The authorization table: every route of the projects, groups, members
// and events modules (read from the router, so a new route cannot be
// forgotten) x every actor x every visibility, each cell with its expected
// status. Allowed cells accept any 2xx or 304; denied cells must answer
// exactly 401, 403 or 404 — a 403 where a 404 is due leaks existence.

type actor string

const (
	anon      actor = "anonymous"
	nonMember actor = "non-member"
	guest     actor = "guest"
	reporter  actor = "reporter"
	developer actor = "developer"
	master    actor = "master"
	owner     actor = "owner"
	admin     actor = "admin"
	blocked   actor = "blocked"
	revoked   actor = "revoked-token"
)

var actors = []actor{anon, nonMember, guest, reporter, developer, master, owner, admin, blocked, revoked}

var levels = map[actor]int{guest: 10, reporter: 20, developer: 30, master: 40, owner: 50}

var visibilities = []string{"private", "internal", "public"}

// rule is what a route requires.
type rule int

const (
	anyone       rule = iota // anonymous included
	signedIn                 // any signed-in user
	readTarget               // whoever may read the project or group
	readSignedIn             // signed in and may read (star, unstar)
	downloadCode             // may fork: reporter on private, any signed-in reader otherwise
	masterLevel              // master or more (or admin)
	ownerLevel               // owner (or admin)
	adminOnly                // administrators only
)

// world holds the users shared by every cell on one server.
type world struct {
	srv     *apptest.Server
	tokens  map[actor]string
	ids     map[actor]int64
	target  int64 // a reporter member of every fixture, the subject of member routes
	shareTo string
}

// fixture is fresh state for one cell: group G (group routes, members by
// group membership) and project P in group H (project routes, members by
// direct project membership; the owner owns H). P is shared with group S.
type fixture struct {
	groupID, projectID, sharedGroupID, freshGroupID, outsider, rootProjectID int64
}

type cellRequest func(w *world, f *fixture, a actor) (method, path string, body any)

type routeCase struct {
	rule     rule
	onGroup  bool // visibility and levels apply to the group fixture
	mutating bool
	req      cellRequest
}

func get(path string) cellRequest {
	return func(w *world, f *fixture, a actor) (string, string, any) { return "GET", expand(path, w, f), nil }
}

func send(method, path string, body func(w *world, f *fixture, a actor) any) cellRequest {
	return func(w *world, f *fixture, a actor) (string, string, any) {
		var b any
		if body != nil {
			b = body(w, f, a)
		}
		return method, expand(path, w, f), b
	}
}

func expand(path string, w *world, f *fixture) string {
	r := strings.NewReplacer(
		"{project}", fmt.Sprint(f.projectID),
		"{group}", fmt.Sprint(f.groupID),
		"{target}", fmt.Sprint(w.target),
		"{shared}", fmt.Sprint(f.sharedGroupID),
		"{outsider}", fmt.Sprint(f.outsider),
		"{rootproject}", fmt.Sprint(f.rootProjectID),
		"{owner}", fmt.Sprint(w.ids[owner]),
	)
	return r.Replace(path)
}

// routeTable lists every route the table must cover, keyed as the router
// names them.
func routeTable() map[string]routeCase {
	member := func(w *world, f *fixture, a actor) any {
		return url.Values{"user_id": {fmt.Sprint(f.outsider)}, "access_level": {"30"}}
	}
	level := func(*world, *fixture, actor) any { return url.Values{"access_level": {"30"}} }
	return map[string]routeCase{
		"GET /api/v4/projects": {rule: anyone, req: get("/projects")},
		"POST /api/v4/projects": {rule: signedIn, mutating: true, req: send("POST", "/projects", func(_ *world, f *fixture, a actor) any {
			return url.Values{"name": {fmt.Sprintf("new %s %d", a, f.projectID)}}
		})},
		"POST /api/v4/projects/user/{user_id}": {rule: adminOnly, mutating: true, req: send("POST", "/projects/user/{outsider}", func(*world, *fixture, actor) any { return url.Values{"name": {"for-outsider"}} })},
		"GET /api/v4/users/{user_id}/projects": {rule: anyone, req: get("/users/{owner}/projects")},
		"GET /api/v4/projects/{id}":            {rule: readTarget, req: get("/projects/{project}")},
		"PUT /api/v4/projects/{id}":            {rule: masterLevel, mutating: true, req: send("PUT", "/projects/{project}", func(*world, *fixture, actor) any { return url.Values{"description": {"changed"}} })},
		"DELETE /api/v4/projects/{id}":         {rule: ownerLevel, mutating: true, req: send("DELETE", "/projects/{project}", nil)},
		"GET /api/v4/projects/{id}/users":      {rule: readTarget, req: get("/projects/{project}/users")},
		"POST /api/v4/projects/{id}/star":      {rule: readSignedIn, mutating: true, req: send("POST", "/projects/{project}/star", nil)},
		"POST /api/v4/projects/{id}/unstar":    {rule: readSignedIn, mutating: true, req: send("POST", "/projects/{project}/unstar", nil)},
		"POST /api/v4/projects/{id}/archive":   {rule: ownerLevel, mutating: true, req: send("POST", "/projects/{project}/archive", nil)},
		"POST /api/v4/projects/{id}/unarchive": {rule: ownerLevel, mutating: true, req: send("POST", "/projects/{project}/unarchive", nil)},
		"POST /api/v4/projects/{id}/fork":      {rule: downloadCode, mutating: true, req: send("POST", "/projects/{project}/fork", nil)},
		"POST /api/v4/projects/{id}/share": {rule: masterLevel, mutating: true, req: send("POST", "/projects/{project}/share", func(w *world, f *fixture, _ actor) any {
			return url.Values{"group_id": {fmt.Sprint(f.freshGroupID)}, "group_access": {"30"}}
		})},
		"DELETE /api/v4/projects/{id}/share/{group_id}":  {rule: masterLevel, mutating: true, req: send("DELETE", "/projects/{project}/share/{shared}", nil)},
		"GET /api/v4/projects/{id}/events":               {rule: readTarget, req: get("/projects/{project}/events")},
		"GET /api/v4/projects/{id}/members":              {rule: readTarget, req: get("/projects/{project}/members")},
		"GET /api/v4/projects/{id}/members/all":          {rule: readTarget, req: get("/projects/{project}/members/all")},
		"POST /api/v4/projects/{id}/members":             {rule: masterLevel, mutating: true, req: send("POST", "/projects/{project}/members", member)},
		"GET /api/v4/projects/{id}/members/{user_id}":    {rule: readTarget, req: get("/projects/{project}/members/{target}")},
		"PUT /api/v4/projects/{id}/members/{user_id}":    {rule: masterLevel, mutating: true, req: send("PUT", "/projects/{project}/members/{target}", level)},
		"DELETE /api/v4/projects/{id}/members/{user_id}": {rule: masterLevel, mutating: true, req: send("DELETE", "/projects/{project}/members/{target}", nil)},
		"GET /api/v4/namespaces":                         {rule: signedIn, req: get("/namespaces")},
		"GET /api/v4/events":                             {rule: signedIn, req: get("/events")},
		"GET /api/v4/users/{id}/events":                  {rule: anyone, req: get("/users/{owner}/events")},
		"GET /api/v4/groups":                             {rule: anyone, req: get("/groups")},
		"POST /api/v4/groups": {rule: signedIn, mutating: true, req: send("POST", "/groups", func(_ *world, f *fixture, a actor) any {
			return url.Values{"name": {fmt.Sprintf("new %s %d", a, f.groupID)}, "path": {fmt.Sprintf("new-%s-%d", a, f.groupID)}}
		})},
		"GET /api/v4/groups/{id}":                        {rule: readTarget, onGroup: true, req: get("/groups/{group}")},
		"PUT /api/v4/groups/{id}":                        {rule: ownerLevel, onGroup: true, mutating: true, req: send("PUT", "/groups/{group}", func(*world, *fixture, actor) any { return url.Values{"description": {"changed"}} })},
		"DELETE /api/v4/groups/{id}":                     {rule: ownerLevel, onGroup: true, mutating: true, req: send("DELETE", "/groups/{group}", nil)},
		"GET /api/v4/groups/{id}/projects":               {rule: readTarget, onGroup: true, req: get("/groups/{group}/projects")},
		"POST /api/v4/groups/{id}/projects/{project_id}": {rule: adminOnly, onGroup: true, mutating: true, req: send("POST", "/groups/{group}/projects/{rootproject}", nil)},
		"GET /api/v4/groups/{id}/members":                {rule: readTarget, onGroup: true, req: get("/groups/{group}/members")},
		"GET /api/v4/groups/{id}/members/all":            {rule: readTarget, onGroup: true, req: get("/groups/{group}/members/all")},
		"POST /api/v4/groups/{id}/members":               {rule: ownerLevel, onGroup: true, mutating: true, req: send("POST", "/groups/{group}/members", member)},
		"GET /api/v4/groups/{id}/members/{user_id}":      {rule: readTarget, onGroup: true, req: get("/groups/{group}/members/{target}")},
		"PUT /api/v4/groups/{id}/members/{user_id}":      {rule: ownerLevel, onGroup: true, mutating: true, req: send("PUT", "/groups/{group}/members/{target}", level)},
		"DELETE /api/v4/groups/{id}/members/{user_id}":   {rule: ownerLevel, onGroup: true, mutating: true, req: send("DELETE", "/groups/{group}/members/{target}", nil)},
	}
}

// expected is the status class of a cell: 0 means allowed (2xx or 304).
func expected(rc routeCase, a actor, vis string) int {
	switch a {
	case blocked, revoked:
		return http.StatusUnauthorized
	case admin:
		return 0
	}
	lvl := levels[a]
	readable := lvl >= 10 || vis == "public" || (vis == "internal" && a != anon)
	switch rc.rule {
	case anyone:
		return 0
	case signedIn:
		if a == anon {
			return http.StatusUnauthorized
		}
		return 0
	case readTarget:
		if !readable {
			return http.StatusNotFound
		}
		return 0
	case adminOnly:
		if a == anon {
			return http.StatusUnauthorized
		}
		return http.StatusForbidden
	}
	// The rest need a signed-in caller who can see the target.
	if a == anon {
		return http.StatusUnauthorized
	}
	if !readable {
		return http.StatusNotFound
	}
	switch rc.rule {
	case readSignedIn:
		return 0
	case downloadCode:
		if vis == "private" && lvl < 20 {
			return http.StatusForbidden
		}
		return 0
	case masterLevel:
		if lvl >= 40 {
			return 0
		}
	case ownerLevel:
		if lvl >= 50 {
			return 0
		}
	}
	return http.StatusForbidden
}

func TestAuthorizationTable(t *testing.T) {
	table := routeTable()
	srv := apptest.New(t)
	// Every route of the covered modules must be in the table.
	var missing []string
	covered := map[string]bool{"projects": true, "groups": true, "members": true, "events": true}
	for _, r := range srv.Router.Routes() {
		key := r.Method + " " + r.Pattern
		if covered[r.Module] {
			if _, ok := table[key]; !ok {
				missing = append(missing, key+" ("+r.Module+")")
			}
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("route %s has no row in the authorization table", m)
	}
	known := map[string]bool{}
	for _, r := range srv.Router.Routes() {
		known[r.Method+" "+r.Pattern] = true
	}
	for key := range table {
		if !known[key] {
			t.Errorf("table row %s matches no route", key)
		}
	}

	cells, leaks := 0, 0
	for _, vis := range visibilities {
		w := newWorld(t, srv)
		shared := newFixture(t, w, vis)
		keys := make([]string, 0, len(table))
		for k := range table {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, key := range keys {
			rc := table[key]
			for _, a := range actors {
				f := shared
				if rc.mutating {
					f = newFixture(t, w, vis)
				}
				method, path, body := rc.req(w, f, a)
				resp, data := srv.Do(t, method, path, w.tokens[a], body)
				want := expected(rc, a, vis)
				got := resp.StatusCode
				cells++
				ok := (want == 0 && (got/100 == 2 || got == http.StatusNotModified)) || got == want
				if !ok {
					if want != 0 && got/100 == 2 || want == http.StatusNotFound && got == http.StatusForbidden {
						leaks++
					}
					t.Errorf("%s as %s on %s: %d, want %s; body %.200s", key, a, vis, got, describe(want), data)
				}
			}
		}
	}
	t.Logf("authorization table: %d routes x %d actors x %d visibilities = %d cells, %d leaks", len(table), len(actors), len(visibilities), cells, leaks)
	if leaks != 0 {
		t.Fatalf("%d leaks", leaks)
	}
}

func describe(status int) string {
	if status == 0 {
		return "2xx or 304"
	}
	return fmt.Sprint(status)
}

var worldSeq int

func newWorld(t *testing.T, srv *apptest.Server) *world {
	t.Helper()
	worldSeq++
	w := &world{srv: srv, tokens: map[actor]string{admin: srv.RootToken}, ids: map[actor]int64{}}
	for _, a := range actors {
		if a == anon || a == admin {
			continue
		}
		id, tok := createUser(t, srv, fmt.Sprintf("%s-%d", strings.ReplaceAll(string(a), "-", ""), worldSeq))
		w.ids[a], w.tokens[a] = id, tok
	}
	w.target, _ = createUser(t, srv, fmt.Sprintf("target-%d", worldSeq))
	srv.JSON(t, "POST", fmt.Sprintf("/users/%d/block", w.ids[blocked]), srv.RootToken, nil, 201, nil)
	var toks []struct{ ID int64 }
	srv.JSON(t, "GET", fmt.Sprintf("/users/%d/impersonation_tokens", w.ids[revoked]), srv.RootToken, nil, 200, &toks)
	for _, tk := range toks {
		srv.Do(t, "DELETE", fmt.Sprintf("/users/%d/impersonation_tokens/%d", w.ids[revoked], tk.ID), srv.RootToken, nil)
	}
	return w
}

func createUser(t testing.TB, srv *apptest.Server, name string) (int64, string) {
	t.Helper()
	var u struct{ ID int64 }
	srv.JSON(t, "POST", "/users", srv.RootToken, url.Values{"username": {name}, "email": {name + "@example.com"},
		"name": {name}, "password": {"password-" + name}, "can_create_group": {"true"}, "projects_limit": {"1000"}}, 201, &u)
	var tok struct{ Token string }
	srv.JSON(t, "POST", fmt.Sprintf("/users/%d/impersonation_tokens", u.ID), srv.RootToken,
		url.Values{"name": {"t"}, "scopes[]": {"api"}}, 201, &tok)
	return u.ID, tok.Token
}

var fixtureSeq int

func newFixture(t *testing.T, w *world, vis string) *fixture {
	t.Helper()
	fixtureSeq++
	srv, root := w.srv, w.srv.RootToken
	n := fixtureSeq
	group := func(path, v string) int64 {
		var g struct{ ID int64 }
		srv.JSON(t, "POST", "/groups", root, url.Values{"name": {path}, "path": {path}, "visibility": {v}}, 201, &g)
		return g.ID
	}
	addMember := func(kind string, id, user int64, level int) {
		srv.JSON(t, "POST", fmt.Sprintf("/%s/%d/members", kind, id), root,
			url.Values{"user_id": {fmt.Sprint(user)}, "access_level": {fmt.Sprint(level)}}, 201, nil)
	}
	f := &fixture{}
	f.groupID = group(fmt.Sprintf("g%d", n), vis)
	holder := group(fmt.Sprintf("h%d", n), vis)
	f.sharedGroupID = group(fmt.Sprintf("s%d", n), "public")
	f.freshGroupID = group(fmt.Sprintf("f%d", n), "public")
	var p struct{ ID int64 }
	srv.JSON(t, "POST", "/projects", root, url.Values{"name": {fmt.Sprintf("p%d", n)}, "namespace_id": {fmt.Sprint(holder)}, "visibility": {vis}}, 201, &p)
	f.projectID = p.ID
	srv.JSON(t, "POST", "/projects", root, url.Values{"name": {fmt.Sprintf("r%d", n)}}, 201, &p)
	f.rootProjectID = p.ID
	for _, a := range []actor{guest, reporter, developer, master} {
		addMember("groups", f.groupID, w.ids[a], levels[a])
		addMember("projects", f.projectID, w.ids[a], levels[a])
	}
	addMember("groups", f.groupID, w.ids[owner], 50)
	addMember("groups", holder, w.ids[owner], 50)
	addMember("groups", f.groupID, w.target, 20)
	addMember("projects", f.projectID, w.target, 20)
	srv.JSON(t, "POST", fmt.Sprintf("/projects/%d/share", f.projectID), root,
		url.Values{"group_id": {fmt.Sprint(f.sharedGroupID)}, "group_access": {"20"}}, 201, nil)
	f.outsider, _ = createUser(t, srv, fmt.Sprintf("outsider-%d", n))
	return f
}
