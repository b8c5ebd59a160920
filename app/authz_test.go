package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"
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
	// Issue tracker, merge request and snippet rules.
	reporterLevel   // reporter or more
	moveReporter    // reporter or more in the project and the target (group G's, same levels); 400 to readers below
	readConf        // may read a confidential issue: reporter or more (404 otherwise)
	confSignedIn    // signed in and may read the confidential issue
	confReporter    // reporter or more; 404 to who may not read the confidential issue
	confMaster      // master or more; 404 likewise
	confOwner       // owner; 404 likewise
	readMR          // may read merge requests: reporters on private projects, any reader otherwise
	readMRSignedIn  // signed in and readMR
	mrDeveloper     // developer or more; 404 to who may not readMR
	mrMerge         // may merge (developer or more, no protection); 401 to readers who may not
	mrMaster        // master or more; 404 to who may not readMR
	mrOwner         // owner; 404 to who may not readMR
	readSnippet     // may read a private snippet: members (404 otherwise)
	snippetSignedIn // signed in and readSnippet
	snippetMaster   // master or more; 404 to who may not readSnippet
	adminAgent      // administrators only (user agent detail): 401/403, or the project's 404
	// Personal snippets: root's, as visible as the fixture's project.
	personalRead   // anyone its visibility lets in (public: anonymous too); 404 otherwise
	personalAuthor // its author (root) and administrators: 401 anonymous, 404 who may not read it, 403 readers
	nobody         // someone else's todo: 404 to everyone signed in, administrators too
	othersAward    // someone else's award emoji: administrators; 403 to who may read the awardable (routeCase.via), 404 to others
	// CI rules.
	ciDeveloper  // developer or more: run, retry, cancel, play, erase, post statuses
	runnerMaster // administrators and masters of a project the runner serves (403 to others, whatever the visibility)
	runnerOnly   // runner protocol: no user credential opens it (400, 401, 403 or 404 to everyone)
)

// world holds the users shared by every cell on one server.
type world struct {
	t       *testing.T
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
	vis                                                                      string
	tr                                                                       *tracker // issues, merge requests, snippets: made on first use
}

type cellRequest func(w *world, f *fixture, a actor) (method, path string, body any)

type routeCase struct {
	rule    rule
	onGroup bool // visibility and levels apply to the group fixture
	// mutating: an allowed cell needs a whole fresh fixture; the row's
	// refused cells share one, which they must leave as it was.
	mutating bool
	req      cellRequest
	// emptyOK lets a denied cell answer 200 with an empty list: a list
	// filtered down to nothing reveals nothing.
	emptyOK bool
	// kept: after a denied cell, the thing the request named (prepared
	// for the cell, tracker.last) must still be readable by root.
	kept bool
	// goneOK lets a cell denied with 404 answer 200 without a body, what
	// the idempotent delete answers for a missing thing, if kept holds.
	goneOK bool
	// via is the rule for reading the thing acted on, for rules that
	// depend on it (othersAward).
	via rule
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
	if strings.Contains(path, "{t.") {
		path = w.tracker(f).expand(path)
	}
	r := strings.NewReplacer(
		"{project}", fmt.Sprint(f.projectID),
		"{group}", fmt.Sprint(f.groupID),
		"{target}", fmt.Sprint(w.target),
		"{shared}", fmt.Sprint(f.sharedGroupID),
		"{fresh}", fmt.Sprint(f.freshGroupID),
		"{outsider}", fmt.Sprint(f.outsider),
		"{rootproject}", fmt.Sprint(f.rootProjectID),
		"{owner}", fmt.Sprint(w.ids[owner]),
	)
	return r.Replace(path)
}

// routeTable lists every route the table must cover, keyed as the router
// names them. Creating a project or a group (named after the actor) and
// starring are not mutating: they change nothing of the shared fixture a
// later cell's answer depends on (an unstar answers 201 or 304, both
// allowed), as subscribing does in the tracker rows.
func routeTable() map[string]routeCase {
	member := func(w *world, f *fixture, a actor) any {
		return url.Values{"user_id": {fmt.Sprint(f.outsider)}, "access_level": {"30"}}
	}
	level := func(*world, *fixture, actor) any { return url.Values{"access_level": {"30"}} }
	return map[string]routeCase{
		"GET /api/v4/projects": {rule: anyone, req: get("/projects")},
		"POST /api/v4/projects": {rule: signedIn, req: send("POST", "/projects", func(_ *world, f *fixture, a actor) any {
			return url.Values{"name": {fmt.Sprintf("new %s %d", a, f.projectID)}}
		})},
		"POST /api/v4/projects/user/{user_id}": {rule: adminOnly, mutating: true, req: send("POST", "/projects/user/{outsider}", func(*world, *fixture, actor) any { return url.Values{"name": {"for-outsider"}} })},
		"GET /api/v4/users/{user_id}/projects": {rule: anyone, req: get("/users/{owner}/projects")},
		"GET /api/v4/projects/{id}":            {rule: readTarget, req: get("/projects/{project}")},
		"PUT /api/v4/projects/{id}":            {rule: masterLevel, mutating: true, req: send("PUT", "/projects/{project}", func(*world, *fixture, actor) any { return url.Values{"description": {"changed"}} })},
		"DELETE /api/v4/projects/{id}":         {rule: ownerLevel, mutating: true, req: send("DELETE", "/projects/{project}", nil)},
		"GET /api/v4/projects/{id}/users":      {rule: readTarget, req: get("/projects/{project}/users")},
		"POST /api/v4/projects/{id}/star":      {rule: readSignedIn, req: send("POST", "/projects/{project}/star", nil)},
		"POST /api/v4/projects/{id}/unstar":    {rule: readSignedIn, req: send("POST", "/projects/{project}/unstar", nil)},
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
		"POST /api/v4/groups": {rule: signedIn, req: send("POST", "/groups", func(_ *world, f *fixture, a actor) any {
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

// expected lists the statuses a denied cell may answer; nil means the
// cell is allowed (2xx or 304).
func expected(rc routeCase, a actor, vis string) []int {
	if rc.rule == runnerOnly {
		return deny(http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound)
	}
	switch a {
	case blocked, revoked:
		return deny(http.StatusUnauthorized)
	case admin:
		if rc.rule == nobody {
			return deny(http.StatusNotFound)
		}
		return nil
	}
	lvl := levels[a]
	readable := lvl >= 10 || vis == "public" || (vis == "internal" && a != anon)
	// What the caller may read inside a readable project: merge requests
	// need code access (reporters on private projects), confidential
	// issues reporters, private snippets members.
	sees := map[rule]bool{
		readConf: lvl >= 20, confSignedIn: lvl >= 20, confReporter: lvl >= 20, confMaster: lvl >= 20, confOwner: lvl >= 20,
		readMR: vis != "private" || lvl >= 20, readMRSignedIn: vis != "private" || lvl >= 20, mrDeveloper: vis != "private" || lvl >= 20,
		mrMerge: vis != "private" || lvl >= 20, mrMaster: vis != "private" || lvl >= 20, mrOwner: vis != "private" || lvl >= 20,
		readSnippet: lvl >= 10, snippetSignedIn: lvl >= 10, snippetMaster: lvl >= 10,
	}
	need := map[rule]int{reporterLevel: 20, masterLevel: 40, ownerLevel: 50, confReporter: 20, confMaster: 40, confOwner: 50,
		mrDeveloper: 30, mrMerge: 30, mrMaster: 40, mrOwner: 50, snippetMaster: 40, ciDeveloper: 30}
	switch rc.rule {
	case anyone:
		return nil
	case signedIn:
		if a == anon {
			return deny(http.StatusUnauthorized)
		}
		return nil
	case readTarget:
		if !readable {
			return deny(http.StatusNotFound)
		}
		return nil
	case readConf, readMR, readSnippet:
		if !readable || !sees[rc.rule] {
			return deny(http.StatusNotFound)
		}
		return nil
	case adminOnly:
		if a == anon {
			return deny(http.StatusUnauthorized)
		}
		return deny(http.StatusForbidden)
	case adminAgent:
		// GitLab checks the administrator first (401, 403); answering the
		// project's 404 first hides no less.
		if a == anon {
			return deny(http.StatusUnauthorized, http.StatusNotFound)
		}
		return deny(http.StatusForbidden, http.StatusNotFound)
	case nobody:
		if a == anon {
			return deny(http.StatusUnauthorized)
		}
		return deny(http.StatusNotFound)
	case personalRead:
		if vis == "public" || vis == "internal" && a != anon {
			return nil
		}
		return deny(http.StatusNotFound)
	case personalAuthor:
		switch {
		case a == anon:
			return deny(http.StatusUnauthorized)
		case vis == "private":
			return deny(http.StatusNotFound)
		}
		return deny(http.StatusForbidden)
	case runnerMaster:
		if a == anon {
			return deny(http.StatusUnauthorized)
		}
		if lvl >= 40 {
			return nil
		}
		return deny(http.StatusForbidden)
	}
	// The rest need a signed-in caller who can see the target.
	if a == anon {
		return deny(http.StatusUnauthorized)
	}
	if !readable {
		return deny(http.StatusNotFound)
	}
	if s, ok := sees[rc.rule]; ok && !s {
		return deny(http.StatusNotFound)
	}
	if rc.rule == othersAward {
		if s, ok := sees[rc.via]; ok && !s {
			return deny(http.StatusNotFound)
		}
		return deny(http.StatusForbidden)
	}
	switch rc.rule {
	case readSignedIn, confSignedIn, readMRSignedIn, snippetSignedIn:
		return nil
	case downloadCode:
		if vis == "private" && lvl < 20 {
			return deny(http.StatusForbidden)
		}
		return nil
	case moveReporter:
		// GitLab's MoveService refuses who may not admin issues with a 400.
		if lvl < 20 {
			return deny(http.StatusBadRequest)
		}
		return nil
	case mrMerge:
		// The spec: a caller who may not accept a merge request gets 401.
		if lvl < need[mrMerge] {
			return deny(http.StatusUnauthorized)
		}
		return nil
	}
	if lvl >= need[rc.rule] {
		return nil
	}
	return deny(http.StatusForbidden)
}

func deny(statuses ...int) []int { return statuses }

func TestAuthorizationTable(t *testing.T) {
	t.Parallel()
	table := routeTable()
	for k, v := range trackerRoutes() {
		table[k] = v
	}
	for k, v := range ciRoutes() {
		table[k] = v
	}
	for k, v := range hookRoutes() {
		table[k] = v
	}
	for k, v := range systemHookRoutes() {
		table[k] = v
	}
	for k, v := range deployKeyRoutes() {
		table[k] = v
	}
	for k, v := range protectedBranchRoutes() {
		table[k] = v
	}
	for k, v := range broadcastRoutes() {
		table[k] = v
	}
	srv := apptest.New(t)
	// Every route of the covered modules must be in the table.
	var missing []string
	covered := map[string]bool{"projects": true, "groups": true, "members": true, "events": true,
		"issues": true, "notes": true, "snippets": true, "todos": true, "mergerequests": true,
		"ci": true, "jobs": true, "runners": true, "hooks": true, "deploykeys": true, "protectedbranches": true,
		"broadcasts": true}
	rows := map[string]bool{}
	for key := range table {
		rows[routeOf(key)] = true
	}
	known := map[string]bool{}
	modules := map[string]bool{}
	for _, r := range srv.Router.Routes() {
		key := r.Method + " " + r.Pattern
		known[key] = true
		modules[r.Module] = true
		if covered[r.Module] && !rows[key] {
			missing = append(missing, key+" ("+r.Module+")")
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("route %s has no row in the authorization table", m)
	}
	for m := range covered {
		if !modules[m] {
			t.Errorf("module %s registers no route (not in app.Modules()?)", m)
		}
	}
	for key := range table {
		if !known[routeOf(key)] {
			t.Errorf("table row %s matches no route", key)
		}
	}

	keys := make([]string, 0, len(table))
	for k := range table {
		if known[routeOf(k)] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	// Each visibility on a server of its own, side by side: on one SQLite
	// database their writers would wait on each other's locks.
	var cells, leaks atomic.Int64
	t.Run("visibility", func(t *testing.T) {
		for _, vis := range visibilities {
			t.Run(vis, func(t *testing.T) {
				t.Parallel()
				c, l := runCells(t, apptest.New(t, allowLocalHooks()), table, keys, vis)
				cells.Add(c)
				leaks.Add(l)
			})
		}
	})
	t.Logf("authorization table: %d rows x %d actors x %d visibilities = %d cells, %d leaks", len(keys), len(actors), len(visibilities), cells.Load(), leaks.Load())
	if leaks.Load() != 0 {
		t.Fatalf("%d leaks", leaks.Load())
	}
}

// runCells runs every row for every actor on one visibility and counts
// the cells and the leaks among the failures.
func runCells(t *testing.T, srv *apptest.Server, table map[string]routeCase, keys []string, vis string) (cells, leaks int64) {
	w := newWorld(t, srv)
	shared := newFixture(t, w, vis)
	for _, key := range keys {
		rc := table[key]
		var refused *fixture // shared by the row's refused cells
		var before string
		for _, a := range actors {
			want := expected(rc, a, vis)
			f := shared
			switch {
			case !rc.mutating:
			case want == nil:
				f = newFixture(t, w, vis)
			case refused == nil:
				refused = newFixture(t, w, vis)
				before = w.snapshot(refused)
				f = refused
			default:
				f = refused
			}
			method, path, body := rc.req(w, f, a)
			resp, data := srv.Do(t, method, path, w.tokens[a], body)
			got := resp.StatusCode
			cells++
			allowed := got/100 == 2 || got == http.StatusNotModified
			ok := want == nil && allowed || want != nil && contains(want, got)
			if want != nil && rc.emptyOK && got == http.StatusOK && strings.TrimSpace(string(data)) == "[]" {
				ok = true
			}
			if want != nil && rc.goneOK && contains(want, http.StatusNotFound) && got == http.StatusOK && len(data) == 0 {
				ok = true
			}
			if !ok {
				if want != nil && allowed || got == http.StatusForbidden && !contains(want, got) && contains(want, http.StatusNotFound) {
					leaks++
				}
				t.Errorf("%s as %s on %s: %s %s answered %d, want %s; body %.200s", key, a, vis, method, path, got, describe(want), data)
			}
			if want != nil && rc.kept {
				if r, d := srv.Do(t, "GET", f.tr.last, srv.RootToken, nil); r.StatusCode != http.StatusOK {
					leaks++
					t.Errorf("%s as %s on %s was refused (%d) but %s is gone: %d %.200s", key, a, vis, got, f.tr.last, r.StatusCode, d)
				}
			}
		}
		if refused != nil {
			if after := w.snapshot(refused); after != before {
				leaks++
				t.Errorf("%s on %s: refused requests changed the fixture; before:\n%s\nafter:\n%s", key, vis, before, after)
			}
		}
	}
	return cells, leaks
}

// snapshot is what root reads of the things a fixture's rows act on, for
// telling whether refused requests left them as they were.
func (w *world) snapshot(f *fixture) string {
	var b strings.Builder
	for _, path := range []string{
		"/projects/{project}", "/projects/{project}/members/all", "/projects/{rootproject}",
		"/groups/{group}", "/groups/{group}/members/all", "/groups/{group}/projects", "/groups/{shared}", "/groups/{fresh}",
		"/users/{outsider}/projects",
	} {
		path = expand(path, w, f)
		resp, data := w.srv.Do(w.t, "GET", path, w.srv.RootToken, nil)
		fmt.Fprintf(&b, "GET %s: %d %s\n", path, resp.StatusCode, data)
	}
	return b.String()
}

// routeOf is the router's name of a table key: "METHOD pattern", without
// the " #variant" suffix of rows that try one route on several things.
func routeOf(key string) string {
	if i := strings.Index(key, " #"); i >= 0 {
		return key[:i]
	}
	return key
}

func contains(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func describe(statuses []int) string {
	if statuses == nil {
		return "2xx or 304"
	}
	return strings.Trim(fmt.Sprint(statuses), "[]")
}

var worldSeq atomic.Int64

func newWorld(t *testing.T, srv *apptest.Server) *world {
	t.Helper()
	n := worldSeq.Add(1)
	w := &world{t: t, srv: srv, tokens: map[actor]string{admin: srv.RootToken}, ids: map[actor]int64{}}
	for _, a := range actors {
		if a == anon || a == admin {
			continue
		}
		id, tok := createUser(t, srv, fmt.Sprintf("%s-%d", strings.ReplaceAll(string(a), "-", ""), n))
		w.ids[a], w.tokens[a] = id, tok
	}
	w.target, _ = createUser(t, srv, fmt.Sprintf("target-%d", n))
	var root struct{ ID int64 }
	srv.JSON(t, "GET", "/user", srv.RootToken, nil, 200, &root)
	w.ids[admin] = root.ID
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

var fixtureSeq atomic.Int64

func newFixture(t *testing.T, w *world, vis string) *fixture {
	t.Helper()
	srv, root := w.srv, w.srv.RootToken
	n := fixtureSeq.Add(1)
	group := func(path, v string) int64 {
		var g struct{ ID int64 }
		srv.JSON(t, "POST", "/groups", root, url.Values{"name": {path}, "path": {path}, "visibility": {v}}, 201, &g)
		return g.ID
	}
	addMember := func(kind string, id, user int64, level int) {
		srv.JSON(t, "POST", fmt.Sprintf("/%s/%d/members", kind, id), root,
			url.Values{"user_id": {fmt.Sprint(user)}, "access_level": {fmt.Sprint(level)}}, 201, nil)
	}
	f := &fixture{vis: vis}
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

// The issue tracker, merge request, note, snippet and todo rows. Their
// cells share one fixture per visibility; a cell whose request would
// spend or break the shared thing (deletes, merges, renames) gets a
// fresh one from its tracker, made by root just before the request.

// tracker is what those rows act on, in the shared fixture's project:
// a public issue and a confidential one, a merge request that closes the
// confidential issue, snippets (one as visible as the project, one
// private), a note on each, a milestone and a label; and a public
// project whose merge request gives every actor todos of their own.
type tracker struct {
	w                                  *world
	f                                  *fixture
	issue, conf, mr                    int64 // iids
	inote, cnote, mnote, snote, psnote int64
	snippet, psnippet, milestone       int64
	personal                           int64 // root's personal snippet, as visible as the project
	label                              string
	todoProject, othersTodo            int64
	seq                                int
	last                               string         // API path of the thing prepared for the current cell
	moveTo                             int64          // a project of group G that issues move to (made on first use)
	awarded                            map[string]int // awards awardAs gave, per awardable
	ciState                            *ciState
}

func (w *world) tracker(f *fixture) *tracker {
	if f.tr != nil {
		return f.tr
	}
	t, root := w.t, w.srv.RootToken
	tr := &tracker{w: w, f: f, label: "bug"}
	f.tr = tr
	p := fmt.Sprintf("/projects/%d", f.projectID)
	tr.commit(f.projectID, "master", "", "README.md")
	tr.commit(f.projectID, "feature", "master", "feature.txt")
	// Until a module is in app.Modules() its rows fail as matching no
	// route; the rest of the table still runs.
	has := map[string]bool{}
	for _, r := range w.srv.Router.Routes() {
		has[r.Module] = true
	}
	if has["issues"] {
		tr.milestone = tr.id(p+"/milestones", vals("title", "v1"))
		tr.issue = tr.iid(p+"/issues", vals("title", "Public issue", "labels", "bug", "milestone_id", fmt.Sprint(tr.milestone)))
		tr.conf = tr.iid(p+"/issues", vals("title", "Secret issue", "confidential", "true", "labels", "bug",
			"milestone_id", fmt.Sprint(tr.milestone)))
	}
	mr := vals("source_branch", "feature", "target_branch", "master", "title", "Feature", "description", fmt.Sprintf("Closes #%d", tr.conf))
	if has["issues"] {
		mr.Set("milestone_id", fmt.Sprint(tr.milestone))
	}
	tr.mr = tr.iid(p+"/merge_requests", mr)
	if has["snippets"] {
		tr.snippet = tr.id(p+"/snippets", snippetForm("open", f.vis))
		tr.psnippet = tr.id(p+"/snippets", snippetForm("private", "private"))
		tr.personal = tr.id("/snippets", personalForm("mine", f.vis))
	}
	if has["notes"] {
		note := vals("body", "A note")
		if has["issues"] {
			tr.inote = tr.id(fmt.Sprintf("%s/issues/%d/notes", p, tr.issue), note)
			tr.cnote = tr.id(fmt.Sprintf("%s/issues/%d/notes", p, tr.conf), note)
		}
		tr.mnote = tr.id(fmt.Sprintf("%s/merge_requests/%d/notes", p, tr.mr), note)
		if has["snippets"] {
			tr.snote = tr.id(fmt.Sprintf("%s/snippets/%d/notes", p, tr.snippet), note)
			tr.psnote = tr.id(fmt.Sprintf("%s/snippets/%d/notes", p, tr.psnippet), note)
		}
	}

	var tp struct{ ID int64 }
	w.srv.JSON(t, "POST", "/projects", root, url.Values{"name": {fmt.Sprintf("todos%d", f.projectID)}, "visibility": {"public"}}, 201, &tp)
	tr.todoProject = tp.ID
	tr.commit(tp.ID, "master", "", "README.md")
	tr.commit(tp.ID, "topic", "master", "topic.txt")
	tr.iid(fmt.Sprintf("/projects/%d/merge_requests", tp.ID), url.Values{"source_branch": {"topic"}, "target_branch": {"master"}, "title": {"Topic"}})
	tr.othersTodo = tr.todoOf(w.target)
	return tr
}

func snippetForm(title, vis string) url.Values {
	return url.Values{"title": {title}, "file_name": {title + ".txt"}, "code": {"content of " + title}, "visibility": {vis}}
}

func personalForm(title, vis string) url.Values {
	return url.Values{"title": {title}, "file_name": {title + ".txt"}, "content": {"content of " + title}, "visibility": {vis}}
}

func (tr *tracker) expand(path string) string {
	return strings.NewReplacer(
		"{t.issue}", fmt.Sprint(tr.issue), "{t.conf}", fmt.Sprint(tr.conf), "{t.mr}", fmt.Sprint(tr.mr),
		"{t.inote}", fmt.Sprint(tr.inote), "{t.cnote}", fmt.Sprint(tr.cnote), "{t.mnote}", fmt.Sprint(tr.mnote),
		"{t.snote}", fmt.Sprint(tr.snote), "{t.psnote}", fmt.Sprint(tr.psnote),
		"{t.snippet}", fmt.Sprint(tr.snippet), "{t.psnippet}", fmt.Sprint(tr.psnippet), "{t.personal}", fmt.Sprint(tr.personal),
		"{t.milestone}", fmt.Sprint(tr.milestone), "{t.label}", tr.label,
	).Replace(path)
}

// post creates something as root and returns its JSON object.
func (tr *tracker) post(path string, body any) map[string]any {
	var out map[string]any
	tr.w.srv.JSON(tr.w.t, "POST", path, tr.w.srv.RootToken, body, 201, &out)
	return out
}

func (tr *tracker) id(path string, body any) int64 { return int64(tr.post(path, body)["id"].(float64)) }
func (tr *tracker) iid(path string, body any) int64 {
	return int64(tr.post(path, body)["iid"].(float64))
}

func (tr *tracker) commit(pid int64, branch, start, file string) {
	body := map[string]any{"branch": branch, "commit_message": "Add " + file,
		"actions": []map[string]string{{"action": "create", "file_path": file, "content": file + "\n"}}}
	if start != "" {
		body["start_branch"] = start
	}
	tr.post(fmt.Sprintf("/projects/%d/repository/commits", pid), body)
}

// next is a number unique within the tracker, for fresh names.
func (tr *tracker) next() int {
	tr.seq++
	return tr.seq
}

// branch pushes a fresh branch off master with one new file.
func (tr *tracker) branch() string {
	name := fmt.Sprintf("b%d", tr.next())
	tr.commit(tr.f.projectID, name, "master", name+".txt")
	return name
}

// freshMR opens a merge request of a fresh branch.
func (tr *tracker) freshMR() int64 {
	iid := tr.iid(fmt.Sprintf("/projects/%d/merge_requests", tr.f.projectID), url.Values{"source_branch": {tr.branch()},
		"target_branch": {"master"}, "title": {"Fresh"}})
	tr.last = fmt.Sprintf("/projects/%d/merge_requests/%d", tr.f.projectID, iid)
	return iid
}

// fresh creates one thing under the project (path relative to it) and
// remembers its path for the kept check.
func (tr *tracker) fresh(under string, body url.Values, key string) int64 {
	base := fmt.Sprintf("/projects/%d/%s", tr.f.projectID, tr.expand(under))
	n := int64(tr.post(base, body)[key].(float64))
	tr.last = fmt.Sprintf("%s/%d", base, n)
	return n
}

// moveTarget is the project of group G that issues move to.
func (tr *tracker) moveTarget() int64 {
	if tr.moveTo == 0 {
		tr.moveTo = tr.id("/projects", vals("name", fmt.Sprintf("moved%d", tr.next()), "namespace_id", fmt.Sprint(tr.f.groupID), "visibility", tr.f.vis))
	}
	return tr.moveTo
}

// todoOf gives user a pending todo of their own (through root's sudo) and
// returns its ID.
func (tr *tracker) todoOf(user int64) int64 {
	w := tr.w
	resp, data := w.srv.Do(w.t, "POST", fmt.Sprintf("/projects/%d/merge_requests/1/todo?sudo=%d", tr.todoProject, user), w.srv.RootToken, nil)
	var td struct{ ID int64 }
	switch resp.StatusCode {
	case http.StatusCreated:
		if err := json.Unmarshal(data, &td); err != nil {
			w.t.Fatalf("todo of %d: %s", user, data)
		}
	case http.StatusNotModified:
		var l []struct{ ID int64 }
		w.srv.JSON(w.t, "GET", fmt.Sprintf("/todos?sudo=%d", user), w.srv.RootToken, nil, 200, &l)
		if len(l) == 0 {
			w.t.Fatalf("todo of %d: 304 and no pending todo", user)
		}
		td.ID = l[0].ID
	default:
		w.t.Fatalf("todo of %d: %d %s", user, resp.StatusCode, data)
	}
	return td.ID
}

// protectedBranchRoutes are the protected branches rows: every endpoint,
// reads included, is a master's (GitLab's authorize_admin_project). Each
// cell names a rule of its own, made by root where the cell needs one, so
// no cell changes what another reads.
func protectedBranchRoutes() map[string]routeCase {
	const api = "/api/v4/projects/{id}/protected_branches"
	const p = "/projects/{project}/protected_branches"
	fresh := func(tr *tracker) string {
		name := fmt.Sprintf("pb-%d", tr.next())
		tr.post(fmt.Sprintf("/projects/%d/protected_branches", tr.f.projectID), vals("name", name, "push_access_level", "30"))
		tr.last = fmt.Sprintf("/projects/%d/protected_branches/%s", tr.f.projectID, name)
		return p + "/" + name
	}
	return map[string]routeCase{
		"GET " + api: {rule: masterLevel, req: get(p)},
		"POST " + api: {rule: masterLevel, req: prepared("POST", func(tr *tracker, _ actor) (string, any) {
			return p, vals("name", fmt.Sprintf("pb-%d", tr.next()), "merge_access_level", "0")
		})},
		"GET " + api + "/{name}": {rule: masterLevel, req: prepared("GET", func(tr *tracker, _ actor) (string, any) {
			return fresh(tr), nil
		})},
		"DELETE " + api + "/{name}": {rule: masterLevel, kept: true, req: prepared("DELETE", func(tr *tracker, _ actor) (string, any) {
			return fresh(tr), nil
		})},
	}
}

// prepared builds a cell's request after prep made what it needs.
func prepared(method string, prep func(tr *tracker, a actor) (path string, body any)) cellRequest {
	return func(w *world, f *fixture, a actor) (string, string, any) {
		path, body := prep(w.tracker(f), a)
		return method, expand(path, w, f), body
	}
}

func values(kv ...string) func(*world, *fixture, actor) any {
	return func(*world, *fixture, actor) any { return vals(kv...) }
}

func vals(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v
}

// noteRows are the five note routes of one noteable kind, tried on one
// noteable (path, its note) under the rules for reading, writing and
// changing others' notes.
func noteRows(rows map[string]routeCase, pattern, variant, noteable, note string, read, write, change rule) {
	one := noteable + "/notes/" + note
	rows["GET "+pattern+"/notes"+variant] = routeCase{rule: read, req: get(noteable + "/notes")}
	rows["POST "+pattern+"/notes"+variant] = routeCase{rule: write, req: send("POST", noteable+"/notes", values("body", "Hello"))}
	rows["GET "+pattern+"/notes/{note_id}"+variant] = routeCase{rule: read, req: get(one)}
	rows["PUT "+pattern+"/notes/{note_id}"+variant] = routeCase{rule: change, req: send("PUT", one, values("body", "Edited"))}
	rows["DELETE "+pattern+"/notes/{note_id}"+variant] = routeCase{rule: change, kept: true, req: prepared("DELETE",
		func(tr *tracker, _ actor) (string, any) {
			return fmt.Sprintf("%s/notes/%d", noteable, tr.fresh(strings.TrimPrefix(noteable, "/projects/{project}/")+"/notes", vals("body", "Doomed"), "id")), nil
		})}
}

func trackerRoutes() map[string]routeCase {
	const api = "/api/v4/projects/{id}"
	const p = "/projects/{project}"
	const conf = " #confidential issue"
	const priv = " #private snippet in the project"
	rows := map[string]routeCase{
		// Issues.
		"GET /api/v4/issues":                        {rule: signedIn, req: get("/issues?scope=all")},
		"GET /api/v4/groups/{id}/issues":            {rule: readTarget, onGroup: true, req: get("/groups/{group}/issues")},
		"GET " + api + "/issues":                    {rule: readTarget, req: get(p + "/issues?state=all")},
		"POST " + api + "/issues":                   {rule: readSignedIn, req: send("POST", p+"/issues", values("title", "New issue"))},
		"GET " + api + "/issues/{issue_iid}":        {rule: readTarget, req: get(p + "/issues/{t.issue}")},
		"GET " + api + "/issues/{issue_iid}" + conf: {rule: readConf, req: get(p + "/issues/{t.conf}")},
		"PUT " + api + "/issues/{issue_iid}":        {rule: reporterLevel, req: send("PUT", p+"/issues/{t.issue}", values("description", "Edited"))},
		"PUT " + api + "/issues/{issue_iid}" + conf: {rule: confReporter, req: send("PUT", p+"/issues/{t.conf}", values("description", "Edited"))},
		"DELETE " + api + "/issues/{issue_iid}": {rule: ownerLevel, kept: true, req: prepared("DELETE", func(tr *tracker, _ actor) (string, any) {
			return fmt.Sprintf("%s/issues/%d", p, tr.fresh("issues", vals("title", "Doomed"), "iid")), nil
		})},
		// Each cell moves a fresh issue to a project of group G, where the
		// actors have the levels they have in P.
		"POST " + api + "/issues/{issue_iid}/move": {rule: moveReporter, kept: true, req: prepared("POST", func(tr *tracker, _ actor) (string, any) {
			iid := tr.fresh("issues", vals("title", "Moving"), "iid")
			return fmt.Sprintf("%s/issues/%d/move", p, iid), vals("to_project_id", fmt.Sprint(tr.moveTarget()))
		})},
		"DELETE " + api + "/issues/{issue_iid}" + conf: {rule: confOwner, kept: true, req: prepared("DELETE", func(tr *tracker, _ actor) (string, any) {
			return fmt.Sprintf("%s/issues/%d", p, tr.fresh("issues", vals("title", "Doomed secret", "confidential", "true"), "iid")), nil
		})},
		// Milestones.
		"GET " + api + "/milestones": {rule: readTarget, req: get(p + "/milestones")},
		"POST " + api + "/milestones": {rule: reporterLevel, req: prepared("POST", func(tr *tracker, _ actor) (string, any) {
			return p + "/milestones", vals("title", fmt.Sprintf("m%d", tr.next()))
		})},
		"GET " + api + "/milestones/{milestone_id}": {rule: readTarget, req: get(p + "/milestones/{t.milestone}")},
		"PUT " + api + "/milestones/{milestone_id}": {rule: reporterLevel, req: send("PUT", p+"/milestones/{t.milestone}", values("description", "Edited"))},
		"DELETE " + api + "/milestones/{milestone_id}": {rule: reporterLevel, kept: true, req: prepared("DELETE", func(tr *tracker, _ actor) (string, any) {
			return fmt.Sprintf("%s/milestones/%d", p, tr.fresh("milestones", vals("title", fmt.Sprintf("doomed%d", tr.next())), "id")), nil
		})},
		"GET " + api + "/milestones/{milestone_id}/issues": {rule: readTarget, req: get(p + "/milestones/{t.milestone}/issues")},
		// Guests of private projects may read milestones but not merge
		// requests: their list may be empty instead of refused.
		"GET " + api + "/milestones/{milestone_id}/merge_requests": {rule: readMR, emptyOK: true, req: get(p + "/milestones/{t.milestone}/merge_requests")},
		// Labels (PUT and DELETE name the label in a parameter).
		"GET " + api + "/labels": {rule: readTarget, req: get(p + "/labels")},
		"POST " + api + "/labels": {rule: reporterLevel, req: prepared("POST", func(tr *tracker, _ actor) (string, any) {
			return p + "/labels", vals("name", fmt.Sprintf("l%d", tr.next()), "color", "#FF0000")
		})},
		"PUT " + api + "/labels": {rule: reporterLevel, req: prepared("PUT", func(tr *tracker, _ actor) (string, any) {
			name := fmt.Sprintf("l%d", tr.next())
			tr.post(fmt.Sprintf("/projects/%d/labels", tr.f.projectID), vals("name", name, "color", "#00FF00"))
			return p + "/labels", vals("name", name, "new_name", name+"-renamed")
		})},
		"DELETE " + api + "/labels": {rule: reporterLevel, req: prepared("DELETE", func(tr *tracker, _ actor) (string, any) {
			name := fmt.Sprintf("l%d", tr.next())
			tr.post(fmt.Sprintf("/projects/%d/labels", tr.f.projectID), vals("name", name, "color", "#0000FF"))
			return p + "/labels?name=" + name, nil
		})},
		// Merge requests.
		"GET /api/v4/merge_requests":     {rule: signedIn, req: get("/merge_requests?scope=all")},
		"GET " + api + "/merge_requests": {rule: readMR, req: get(p + "/merge_requests?state=all")},
		"POST " + api + "/merge_requests": {rule: mrDeveloper, req: prepared("POST", func(tr *tracker, _ actor) (string, any) {
			return p + "/merge_requests", vals("source_branch", tr.branch(), "target_branch", "master", "title", "New")
		})},
		"GET " + api + "/merge_requests/{merge_request_iid}": {rule: readMR, req: get(p + "/merge_requests/{t.mr}")},
		"PUT " + api + "/merge_requests/{merge_request_iid}": {rule: mrDeveloper, req: send("PUT", p+"/merge_requests/{t.mr}", values("description", "Edited"))},
		"DELETE " + api + "/merge_requests/{merge_request_iid}": {rule: mrOwner, kept: true, req: prepared("DELETE", func(tr *tracker, _ actor) (string, any) {
			return fmt.Sprintf("%s/merge_requests/%d", p, tr.freshMR()), nil
		})},
		"GET " + api + "/merge_requests/{merge_request_iid}/commits":       {rule: readMR, req: get(p + "/merge_requests/{t.mr}/commits")},
		"GET " + api + "/merge_requests/{merge_request_iid}/changes":       {rule: readMR, req: get(p + "/merge_requests/{t.mr}/changes")},
		"GET " + api + "/merge_requests/{merge_request_iid}/closes_issues": {rule: readMR, req: get(p + "/merge_requests/{t.mr}/closes_issues")},
		"PUT " + api + "/merge_requests/{merge_request_iid}/merge": {rule: mrMerge, req: prepared("PUT", func(tr *tracker, _ actor) (string, any) {
			return fmt.Sprintf("%s/merge_requests/%d/merge", p, tr.freshMR()), nil
		})},
		"POST " + api + "/merge_requests/{merge_request_iid}/subscribe":   {rule: readMRSignedIn, req: send("POST", p+"/merge_requests/{t.mr}/subscribe", nil)},
		"POST " + api + "/merge_requests/{merge_request_iid}/unsubscribe": {rule: readMRSignedIn, req: send("POST", p+"/merge_requests/{t.mr}/unsubscribe", nil)},
		"POST " + api + "/merge_requests/{merge_request_iid}/todo":        {rule: readMRSignedIn, req: send("POST", p+"/merge_requests/{t.mr}/todo", nil)},
		// Snippets.
		"GET " + api + "/snippets": {rule: readTarget, req: get(p + "/snippets")},
		"POST " + api + "/snippets": {rule: reporterLevel, req: send("POST", p+"/snippets", func(*world, *fixture, actor) any {
			return snippetForm("new", "private")
		})},
		"GET " + api + "/snippets/{snippet_id}":        {rule: readTarget, req: get(p + "/snippets/{t.snippet}")},
		"GET " + api + "/snippets/{snippet_id}" + priv: {rule: readSnippet, req: get(p + "/snippets/{t.psnippet}")},
		"PUT " + api + "/snippets/{snippet_id}":        {rule: masterLevel, req: send("PUT", p+"/snippets/{t.snippet}", values("description", "Edited"))},
		"PUT " + api + "/snippets/{snippet_id}" + priv: {rule: snippetMaster, req: send("PUT", p+"/snippets/{t.psnippet}", values("description", "Edited"))},
		"DELETE " + api + "/snippets/{snippet_id}": {rule: masterLevel, kept: true, req: prepared("DELETE", func(tr *tracker, _ actor) (string, any) {
			return fmt.Sprintf("%s/snippets/%d", p, tr.fresh("snippets", snippetForm("doomed", tr.f.vis), "id")), nil
		})},
		"DELETE " + api + "/snippets/{snippet_id}" + priv: {rule: snippetMaster, kept: true, goneOK: true, req: prepared("DELETE", func(tr *tracker, _ actor) (string, any) {
			return fmt.Sprintf("%s/snippets/%d", p, tr.fresh("snippets", snippetForm("doomed", "private"), "id")), nil
		})},
		"GET " + api + "/snippets/{snippet_id}/raw":                      {rule: readTarget, req: get(p + "/snippets/{t.snippet}/raw")},
		"GET " + api + "/snippets/{snippet_id}/raw" + priv:               {rule: readSnippet, req: get(p + "/snippets/{t.psnippet}/raw")},
		"GET " + api + "/snippets/{snippet_id}/user_agent_detail":        {rule: adminAgent, req: get(p + "/snippets/{t.snippet}/user_agent_detail")},
		"GET " + api + "/snippets/{snippet_id}/user_agent_detail" + priv: {rule: adminAgent, req: get(p + "/snippets/{t.psnippet}/user_agent_detail")},
		// Personal snippets: root's, of the fixture's visibility.
		"GET /api/v4/snippets":        {rule: signedIn, req: get("/snippets")},
		"GET /api/v4/snippets/public": {rule: signedIn, req: get("/snippets/public")},
		"POST /api/v4/snippets": {rule: signedIn, req: send("POST", "/snippets", func(*world, *fixture, actor) any {
			return personalForm("new", "private")
		})},
		"GET /api/v4/snippets/{id}":     {rule: personalRead, req: get("/snippets/{t.personal}")},
		"GET /api/v4/snippets/{id}/raw": {rule: personalRead, req: get("/snippets/{t.personal}/raw")},
		"PUT /api/v4/snippets/{id}":     {rule: personalAuthor, req: send("PUT", "/snippets/{t.personal}", values("description", "Edited"))},
		"DELETE /api/v4/snippets/{id}": {rule: personalAuthor, kept: true, req: prepared("DELETE", func(tr *tracker, _ actor) (string, any) {
			tr.last = fmt.Sprintf("/snippets/%d", tr.id("/snippets", personalForm("doomed", tr.f.vis)))
			return tr.last, nil
		})},
		"GET /api/v4/snippets/{id}/user_agent_detail": {rule: adminOnly, req: get("/snippets/{t.personal}/user_agent_detail")},
		// Todos: one of the actor's own, and someone else's.
		"GET /api/v4/todos":               {rule: signedIn, req: get("/todos")},
		"POST /api/v4/todos/mark_as_done": {rule: signedIn, req: send("POST", "/todos/mark_as_done", nil)},
		"POST /api/v4/todos/{id}/mark_as_done": {rule: signedIn, req: prepared("POST", func(tr *tracker, a actor) (string, any) {
			id := tr.othersTodo
			if a != anon && a != blocked && a != revoked {
				id = tr.todoOf(tr.w.ids[a])
			}
			return fmt.Sprintf("/todos/%d/mark_as_done", id), nil
		})},
		"POST /api/v4/todos/{id}/mark_as_done #someone else's": {rule: nobody, req: prepared("POST", func(tr *tracker, _ actor) (string, any) {
			return fmt.Sprintf("/todos/%d/mark_as_done", tr.othersTodo), nil
		})},
	}
	// Time tracking: reporters change an issue's (admin_issue), developers
	// a merge request's (admin_merge_request); readers read them.
	hour := values("duration", "1h")
	for _, route := range []string{"time_estimate", "reset_time_estimate", "add_spent_time", "reset_spent_time"} {
		rows["POST "+api+"/issues/{issue_iid}/"+route] = routeCase{rule: reporterLevel, req: send("POST", p+"/issues/{t.issue}/"+route, hour)}
		rows["POST "+api+"/issues/{issue_iid}/"+route+conf] = routeCase{rule: confReporter, req: send("POST", p+"/issues/{t.conf}/"+route, hour)}
		rows["POST "+api+"/merge_requests/{merge_request_iid}/"+route] = routeCase{rule: mrDeveloper, req: send("POST", p+"/merge_requests/{t.mr}/"+route, hour)}
	}
	rows["GET "+api+"/issues/{issue_iid}/time_stats"] = routeCase{rule: readTarget, req: get(p + "/issues/{t.issue}/time_stats")}
	rows["GET "+api+"/issues/{issue_iid}/time_stats"+conf] = routeCase{rule: readConf, req: get(p + "/issues/{t.conf}/time_stats")}
	rows["GET "+api+"/merge_requests/{merge_request_iid}/time_stats"] = routeCase{rule: readMR, req: get(p + "/merge_requests/{t.mr}/time_stats")}
	// Cancelling a merge when the pipeline succeeds (PUT, and go-gitlab's
	// POST): root asks for one first, so allowed callers get a 200.
	for _, m := range []string{"PUT", "POST"} {
		rows[m+" "+api+"/merge_requests/{merge_request_iid}/cancel_merge_when_pipeline_succeeds"] = routeCase{rule: mrMerge,
			req: prepared(m, func(tr *tracker, _ actor) (string, any) {
				path := fmt.Sprintf("/projects/%d/merge_requests/%d", tr.f.projectID, tr.mr)
				tr.w.srv.JSON(tr.w.t, "PUT", path+"/merge", tr.w.srv.RootToken, vals("merge_when_pipeline_succeeds", "true"), 200, nil)
				return p + "/merge_requests/{t.mr}/cancel_merge_when_pipeline_succeeds", nil
			})}
	}
	// Subscriptions and todos of issues.
	for _, action := range []string{"subscribe", "unsubscribe", "todo"} {
		rows["POST "+api+"/issues/{issue_iid}/"+action] = routeCase{rule: readSignedIn, req: send("POST", p+"/issues/{t.issue}/"+action, nil)}
		rows["POST "+api+"/issues/{issue_iid}/"+action+conf] = routeCase{rule: confSignedIn, req: send("POST", p+"/issues/{t.conf}/"+action, nil)}
	}
	// Notes, per noteable.
	noteRows(rows, api+"/issues/{issue_iid}", "", p+"/issues/{t.issue}", "{t.inote}", readTarget, readSignedIn, masterLevel)
	noteRows(rows, api+"/issues/{issue_iid}", conf, p+"/issues/{t.conf}", "{t.cnote}", readConf, confSignedIn, confMaster)
	noteRows(rows, api+"/merge_requests/{merge_request_iid}", "", p+"/merge_requests/{t.mr}", "{t.mnote}", readMR, readMRSignedIn, mrMaster)
	noteRows(rows, api+"/snippets/{snippet_id}", "", p+"/snippets/{t.snippet}", "{t.snote}", readTarget, readSignedIn, masterLevel)
	noteRows(rows, api+"/snippets/{snippet_id}", priv, p+"/snippets/{t.psnippet}", "{t.psnote}", readSnippet, snippetSignedIn, snippetMaster)
	// Award emoji, per awardable: the noteables and their notes. The
	// whole API needs a signed-in caller, reading ones too.
	for _, aw := range []struct {
		pattern, variant, under string
		read                    rule
	}{
		{"/issues/{issue_iid}", "", "issues/{t.issue}", readSignedIn},
		{"/issues/{issue_iid}", conf, "issues/{t.conf}", confSignedIn},
		{"/merge_requests/{merge_request_iid}", "", "merge_requests/{t.mr}", readMRSignedIn},
		{"/snippets/{snippet_id}", "", "snippets/{t.snippet}", readSignedIn},
		{"/snippets/{snippet_id}", priv, "snippets/{t.psnippet}", snippetSignedIn},
		{"/issues/{issue_iid}/notes/{note_id}", "", "issues/{t.issue}/notes/{t.inote}", readSignedIn},
		{"/issues/{issue_iid}/notes/{note_id}", conf, "issues/{t.conf}/notes/{t.cnote}", confSignedIn},
		{"/merge_requests/{merge_request_iid}/notes/{note_id}", "", "merge_requests/{t.mr}/notes/{t.mnote}", readMRSignedIn},
		{"/snippets/{snippet_id}/notes/{note_id}", "", "snippets/{t.snippet}/notes/{t.snote}", readSignedIn},
		{"/snippets/{snippet_id}/notes/{note_id}", priv, "snippets/{t.psnippet}/notes/{t.psnote}", snippetSignedIn},
	} {
		awardRows(rows, api+aw.pattern+"/award_emoji", aw.variant, aw.under+"/award_emoji", aw.read)
	}
	return rows
}

// awardRows are the four award emoji routes of one awardable (under, its
// award_emoji path in the project): reading, awarding and taking back
// one's own award under the rule read, and someone else's (root's).
func awardRows(rows map[string]routeCase, pattern, variant, under string, read rule) {
	const p = "/projects/{project}/"
	one := pattern + "/{award_id}"
	rows["GET "+pattern+variant] = routeCase{rule: read, req: get(p + under)}
	rows["POST "+pattern+variant] = routeCase{rule: read, req: send("POST", p+under, values("name", "tada"))}
	rows["GET "+one+variant] = routeCase{rule: read, req: prepared("GET", func(tr *tracker, _ actor) (string, any) {
		return fmt.Sprintf("%s%s/%d", p, under, tr.awardAs(under, admin)), nil
	})}
	rows["DELETE "+one+variant] = routeCase{rule: read, kept: true, req: prepared("DELETE", func(tr *tracker, a actor) (string, any) {
		return fmt.Sprintf("%s%s/%d", p, under, tr.awardAs(under, a)), nil
	})}
	rows["DELETE "+one+variant+" #someone else's"] = routeCase{rule: othersAward, via: read, kept: true,
		req: prepared("DELETE", func(tr *tracker, _ actor) (string, any) {
			return fmt.Sprintf("%s%s/%d", p, under, tr.awardAs(under, admin)), nil
		})}
}

// awardNames are what awardAs gives on each awardable, in turn, so that
// no one gives the same award twice (the POST rows give "tada"); a row
// gives at most one per actor.
var awardNames = strings.Fields(`smile heart rocket eyes clap fire star wave pray muscle ok_hand sparkles
	bulb bug coffee beer pizza cake trophy medal bell key lock wrench gear link scroll book computer
	package mag zap boom balloon gift dog cat fox bear koala tiger frog whale dolphin octopus crab
	apple banana cherries grapes lemon strawberry peach tomato avocado sunny cloud umbrella snowflake`)

// awardAs gives the awardable at under (its award_emoji path in the
// project) a fresh award as a (through root's sudo), or as root when a
// may not award it, and returns the award's ID.
func (tr *tracker) awardAs(under string, a actor) int64 {
	w := tr.w
	base := fmt.Sprintf("/projects/%d/%s", tr.f.projectID, tr.expand(under))
	if tr.awarded == nil {
		tr.awarded = map[string]int{}
	}
	n := tr.awarded[base]
	if n == len(awardNames) {
		w.t.Fatalf("awardAs: more than %d awards on %s", n, base)
	}
	tr.awarded[base] = n + 1
	name := vals("name", awardNames[n])
	var out struct{ ID int64 }
	if id, ok := w.ids[a]; ok && a != admin && a != blocked && a != revoked {
		resp, data := w.srv.Do(w.t, "POST", fmt.Sprintf("%s?sudo=%d", base, id), w.srv.RootToken, name)
		if resp.StatusCode == http.StatusCreated && json.Unmarshal(data, &out) == nil {
			tr.last = fmt.Sprintf("%s/%d", base, out.ID)
			return out.ID
		}
	}
	w.srv.JSON(w.t, "POST", base, w.srv.RootToken, name, 201, &out)
	tr.last = fmt.Sprintf("%s/%d", base, out.ID)
	return out.ID
}
