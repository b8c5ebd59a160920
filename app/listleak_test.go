package app_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

// TestListsNeverLeak plants private, internal and public projects and
// groups, then walks every page of every list as each actor: nothing the
// actor may not read appears, and X-Total is what can be paged through.
func TestListsNeverLeak(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t)
	root := srv.RootToken
	memberID, memberTok := createUser(t, srv, "leak-member")
	outsiderID, outsiderTok := createUser(t, srv, "leak-outsider")
	_, externalTok := createUser(t, srv, "leak-external")
	srv.JSON(t, "PUT", "/users/"+strconv.FormatInt(mustUserID(t, srv, "leak-external"), 10), root, url.Values{"external": {"true"}}, 200, nil)

	type thing struct {
		id         int64
		visibility string
		member     bool // leak-member may read it through membership
	}
	var projects, groups []thing
	for _, gv := range visibilities {
		var g struct{ ID int64 }
		srv.JSON(t, "POST", "/groups", root, url.Values{"name": {"grp-" + gv}, "path": {"grp-" + gv}, "visibility": {gv}}, 201, &g)
		groups = append(groups, thing{g.ID, gv, false})
		var sub struct{ ID int64 }
		srv.JSON(t, "POST", "/groups", root, url.Values{"name": {"sub-" + gv}, "path": {"sub-" + gv}, "visibility": {gv}, "parent_id": {fmt.Sprint(g.ID)}}, 201, &sub)
		groups = append(groups, thing{sub.ID, gv, false})
		for _, pv := range visibilities {
			if rankOf(pv) > rankOf(gv) {
				continue
			}
			for i, ns := range []int64{g.ID, sub.ID} {
				var p struct{ ID int64 }
				srv.JSON(t, "POST", "/projects", root, url.Values{"name": {fmt.Sprintf("%s-in-%s-%d", pv, gv, i)}, "namespace_id": {fmt.Sprint(ns)}, "visibility": {pv}}, 201, &p)
				projects = append(projects, thing{p.ID, pv, false})
			}
		}
	}
	// leak-member: direct member of one private project, member of the
	// private top group (so of its subgroup and every project inside).
	privTop := groups[0]
	srv.JSON(t, "POST", fmt.Sprintf("/groups/%d/members", privTop.id), root, url.Values{"user_id": {fmt.Sprint(memberID)}, "access_level": {"20"}}, 201, nil)
	groups[0].member, groups[1].member = true, true
	var lone struct{ ID int64 }
	srv.JSON(t, "POST", "/projects", root, url.Values{"name": {"lone-private"}, "visibility": {"private"}}, 201, &lone)
	srv.JSON(t, "POST", fmt.Sprintf("/projects/%d/members", lone.ID), root, url.Values{"user_id": {fmt.Sprint(memberID)}, "access_level": {"30"}}, 201, nil)
	projects = append(projects, thing{lone.ID, "private", true})
	var priv struct{ ID int64 }
	srv.JSON(t, "POST", "/projects", root, url.Values{"name": {"root-private"}, "visibility": {"private"}}, 201, &priv)
	projects = append(projects, thing{priv.ID, "private", false})
	// Projects inside the private top group and its subgroup are the member's too.
	var inPriv []struct{ ID int64 }
	srv.JSON(t, "GET", fmt.Sprintf("/groups/%d/projects?per_page=100", groups[0].id), root, nil, 200, &inPriv)
	var inSub []struct{ ID int64 }
	srv.JSON(t, "GET", fmt.Sprintf("/groups/%d/projects?per_page=100", groups[1].id), root, nil, 200, &inSub)
	memberOf := map[int64]bool{}
	for _, p := range append(inPriv, inSub...) {
		memberOf[p.ID] = true
	}
	for i := range projects {
		if memberOf[projects[i].id] {
			projects[i].member = true
		}
	}
	_ = outsiderID

	type who struct {
		name     string
		token    string
		signedIn bool
		member   bool
		external bool
		admin    bool
	}
	actors := []who{
		{"anonymous", "", false, false, false, false},
		{"outsider", outsiderTok, true, false, false, false},
		{"external", externalTok, true, false, true, false},
		{"member", memberTok, true, true, false, false},
		{"admin", root, true, false, false, true},
	}
	can := func(a who, th thing) bool {
		switch {
		case a.admin, th.visibility == "public":
			return true
		case th.visibility == "internal":
			return a.signedIn && !a.external || a.member && th.member
		}
		return a.member && th.member
	}
	visibleProjects := func(a who) map[int64]bool {
		m := map[int64]bool{}
		for _, p := range projects {
			if can(a, p) {
				m[p.id] = true
			}
		}
		return m
	}
	allProjects := map[int64]bool{}
	for _, p := range projects {
		allProjects[p.id] = true
	}
	allGroups := map[int64]bool{}
	for _, g := range groups {
		allGroups[g.id] = true
	}

	for _, a := range actors {
		t.Run(a.name, func(t *testing.T) {
			okProjects := visibleProjects(a)
			okGroups := map[int64]bool{}
			for _, g := range groups {
				if can(a, g) {
					okGroups[g.id] = true
				}
			}
			check := func(path string, allowed, universe map[int64]bool, wantAll bool) {
				t.Helper()
				seen := walk(t, srv, path, a.token)
				for id := range seen {
					if universe[id] && !allowed[id] {
						t.Errorf("%s shows %d to %s", path, id, a.name)
					}
				}
				if wantAll {
					for id := range allowed {
						if universe[id] && !seen[id] {
							t.Errorf("%s hides readable %d from %s", path, id, a.name)
						}
					}
				}
			}
			check("/projects", okProjects, allProjects, true)
			check("/projects?simple=true", okProjects, allProjects, true)
			check("/projects?visibility=private", okProjects, allProjects, false)
			check("/projects?search=private", okProjects, allProjects, false)
			check("/groups?all_available=true", okGroups, allGroups, true)
			check("/groups", okGroups, allGroups, false)
			for _, g := range groups {
				path := fmt.Sprintf("/groups/%d/projects", g.id)
				if !okGroups[g.id] {
					if resp, _ := srv.Do(t, "GET", path, a.token, nil); resp.StatusCode != 404 {
						t.Errorf("%s as %s: %d, want 404", path, a.name, resp.StatusCode)
					}
					continue
				}
				check(path, okProjects, allProjects, false)
			}
			check("/users/1/projects", okProjects, allProjects, false)
			if a.signedIn {
				check("/namespaces", okGroups, allGroups, false)
				check("/events", okProjects, allProjects, false)
			}
			for _, p := range projects {
				path := fmt.Sprintf("/projects/%d/events", p.id)
				resp, _ := srv.Do(t, "GET", path, a.token, nil)
				if want := map[bool]int{true: 200, false: 404}[okProjects[p.id]]; resp.StatusCode != want {
					t.Errorf("%s as %s: %d, want %d", path, a.name, resp.StatusCode, want)
				}
			}
		})
	}
}

func rankOf(v string) int { return map[string]int{"private": 0, "internal": 1, "public": 2}[v] }

func mustUserID(t *testing.T, srv *apptest.Server, username string) int64 {
	t.Helper()
	var l []struct{ ID int64 }
	srv.JSON(t, "GET", "/users?username="+username, srv.RootToken, nil, 200, &l)
	if len(l) != 1 {
		t.Fatalf("user %s not found", username)
	}
	return l[0].ID
}

// walk follows X-Next-Page with a small page size and checks that X-Total
// equals what can be paged through. It returns the IDs seen (of projects,
// groups or namespaces; events contribute their project_id).
func walk(t *testing.T, srv *apptest.Server, path, token string) map[int64]bool {
	t.Helper()
	seen := map[int64]bool{}
	count := 0
	sep := "?"
	if containsQuery(path) {
		sep = "&"
	}
	page, total := "1", -1
	for page != "" {
		resp, body := srv.Do(t, "GET", path+sep+"per_page=2&page="+page, token, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s page %s: %d %s", path, page, resp.StatusCode, body)
		}
		var items []map[string]any
		if err := json.Unmarshal(body, &items); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		n, err := strconv.Atoi(resp.Header.Get("X-Total"))
		if err != nil {
			t.Fatalf("GET %s: X-Total %q", path, resp.Header.Get("X-Total"))
		}
		if total >= 0 && n != total {
			t.Fatalf("GET %s: X-Total changed from %d to %d", path, total, n)
		}
		total = n
		for _, it := range items {
			count++
			key := "id"
			if _, ok := it["action_name"]; ok {
				key = "project_id"
			}
			if v, ok := it[key].(float64); ok {
				seen[int64(v)] = true
			}
		}
		page = resp.Header.Get("X-Next-Page")
		if count > 10000 {
			t.Fatalf("GET %s does not end", path)
		}
	}
	if count != total {
		t.Errorf("GET %s: X-Total %d but %d items can be paged through", path, total, count)
	}
	return seen
}

func containsQuery(p string) bool {
	for _, c := range p {
		if c == '?' {
			return true
		}
	}
	return false
}
