package issues_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

const groupNotFound = `{"message":"404 Group Not Found"}`

// TestGroupIssues: GET /groups/:id/issues lists the issues of the projects
// in the group and its subgroups that the caller may read, tracker on,
// confidential ones only for who may see them, every state by default,
// with the project list's filters and pagination headers; on both drivers.
func TestGroupIssues(t *testing.T) {
	t.Parallel()
	for _, v := range []struct {
		name string
		opts []apptest.Option
	}{{"sqlite", nil}, {"postgres", []apptest.Option{apptest.Postgres()}}} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			testGroupIssues(t, newServer(t, v.opts...))
		})
	}
}

func testGroupIssues(t *testing.T, s *server) {
	root := s.RootToken
	gid := apptest.ID(s.Group(root, "name", "Team", "path", "team", "visibility", "public"))
	sub := apptest.ID(s.Group(root, "name", "Sub", "path", "sub", "visibility", "public", "parent_id", fmt.Sprint(gid)))
	secret := apptest.ID(s.Group(root, "name", "Secret", "path", "secret", "visibility", "private"))
	in := func(ns int64, name, vis string) int64 {
		return s.project(name, vis, "namespace_id", fmt.Sprint(ns))
	}
	pub, priv, off := in(gid, "pub", "public"), in(gid, "priv", "private"), in(gid, "off", "public")
	subPub, subPriv := in(sub, "subpub", "public"), in(sub, "subpriv", "private")
	outside, hiddenGroup := s.project("outside", "public"), in(secret, "inner", "private")
	mem, outsider := s.person("mem"), s.person("outsider")
	s.member(priv, mem, guest)

	var v1 milestoneJSON
	s.JSON(t, "POST", fmt.Sprintf("/projects/%d/milestones", pub), root, form("title", "v1"), 201, &v1)
	var subV1 milestoneJSON
	s.JSON(t, "POST", fmt.Sprintf("/projects/%d/milestones", subPub), root, form("title", "v1"), 201, &subV1)
	s.create(root, pub, "pub open", "labels", "bug", "milestone_id", fmt.Sprint(v1.ID))
	s.create(root, pub, "pub closed", "description", "needle")
	s.update(root, pub, 2, "state_event", "close")
	s.create(root, pub, "pub secret", "confidential", "true")
	s.create(root, pub, "mem secret", "confidential", "true", "assignee_id", fmt.Sprint(mem.id))
	s.create(root, priv, "priv open", "labels", "bug")
	s.create(root, priv, "priv secret", "confidential", "true")
	s.create(root, off, "off open")
	s.Expect(200, "PUT", fmt.Sprintf("/projects/%d", off), root, form("issues_enabled", "false"))
	s.create(root, subPub, "sub open", "milestone_id", fmt.Sprint(subV1.ID))
	s.create(root, subPriv, "subpriv open")
	s.create(root, outside, "outside open")
	s.create(root, hiddenGroup, "inner open")

	titles := func(token, path string) string {
		t.Helper()
		list, _ := s.list(token, path)
		out := make([]string, 0, len(list))
		for _, is := range list {
			out = append(out, is.Title)
		}
		slices.Sort(out)
		return strings.Join(out, ",")
	}
	base := fmt.Sprintf("/groups/%d/issues", gid)
	public := "pub closed,pub open,sub open"
	for _, c := range []struct{ who, token, want string }{
		{"anonymous", "", public},
		{"outsider", outsider.token, public},
		// A guest of priv: its plain issues, and the confidential one
		// assigned to them.
		{"guest of priv", mem.token, "mem secret,priv open,pub closed,pub open,sub open"},
		{"admin", root, "mem secret,priv open,priv secret,pub closed,pub open,pub secret,sub open,subpriv open"},
	} {
		if got := titles(c.token, base); got != c.want {
			t.Errorf("%s: %s, want %s", c.who, got, c.want)
		}
	}

	// The group by its URL-encoded path; a subgroup lists only its own tree.
	if got := titles(root, "/groups/team%2Fsub/issues"); got != "sub open,subpriv open" {
		t.Errorf("subgroup by path: %s", got)
	}
	if got := titles(outsider.token, fmt.Sprintf("/groups/%d/issues", sub)); got != "sub open" {
		t.Errorf("subgroup as outsider: %s", got)
	}

	// Filters and order, as on a project's list.
	for _, c := range []struct{ query, want string }{
		{"?state=opened", "pub open,sub open"},
		{"?state=closed", "pub closed"},
		{"?state=all", public},
		{"?labels=bug", "pub open"},
		{"?milestone=v1", "pub open,sub open"},
		{"?milestone=None", "pub closed"},
		{"?milestone=v9", ""},
		{"?search=needle", "pub closed"},
		{"?iids[]=1", "pub open,sub open"},
		{"?author_id=" + fmt.Sprint(mem.id), ""},
	} {
		if got := titles(outsider.token, base+c.query); got != c.want {
			t.Errorf("%s: %s, want %s", c.query, got, c.want)
		}
	}
	if got := titles(mem.token, base+"?labels=bug"); got != "priv open,pub open" {
		t.Errorf("labels as guest of priv: %s", got)
	}
	list, _ := s.list(root, base+"?order_by=created_at&sort=asc&per_page=2")
	if len(list) != 2 || list[0].Title != "pub open" || list[1].Title != "pub closed" {
		t.Errorf("oldest first: %v", list)
	}

	// Pagination counts only what the caller sees.
	list, r := s.list(root, base+"?per_page=3&page=2")
	h := r.Header
	if len(list) != 3 || h.Get("X-Total") != "8" || h.Get("X-Total-Pages") != "3" || h.Get("X-Page") != "2" ||
		h.Get("X-Per-Page") != "3" || h.Get("X-Prev-Page") != "1" || h.Get("X-Next-Page") != "3" ||
		!strings.Contains(h.Get("Link"), `rel="next"`) {
		t.Errorf("root page 2: %d issues, headers %v", len(list), h)
	}
	list, r = s.list(outsider.token, base+"?per_page=2&page=2")
	if h := r.Header; len(list) != 1 || h.Get("X-Total") != "3" || h.Get("X-Total-Pages") != "2" || h.Get("X-Next-Page") != "" {
		t.Errorf("outsider page 2: %d issues, headers %v", len(list), h)
	}
	// One page costs the same number of queries whatever its size (the
	// oldest four already have labels, a milestone and an assignee).
	count := func(perPage int) int64 {
		before := s.Queries()
		s.list(root, fmt.Sprintf("%s?sort=asc&per_page=%d", base, perPage))
		return s.Queries() - before
	}
	if four, all := count(4), count(100); four != all {
		t.Errorf("queries: %d for four issues, %d for eight", four, all)
	}

	// Groups the caller may not see, or that do not exist, are 404; bad
	// parameters are 400 once the group is found.
	s.ExpectBody(404, groupNotFound, "GET", fmt.Sprintf("/groups/%d/issues", secret), outsider.token, nil)
	s.ExpectBody(404, groupNotFound, "GET", fmt.Sprintf("/groups/%d/issues?state=bogus", secret), "", nil)
	s.ExpectBody(404, groupNotFound, "GET", "/groups/nope/issues", root, nil)
	s.ExpectBody(404, groupNotFound, "GET", "/groups/999999/issues", root, nil)
	s.ExpectBody(400, `{"error":"state does not have a valid value"}`, "GET", base+"?state=bogus", outsider.token, nil)
	s.ExpectBody(400, `{"error":"order_by does not have a valid value"}`, "GET", base+"?order_by=title", "", nil)
	if got := titles(root, fmt.Sprintf("/groups/%d/issues", secret)); got != "inner open" {
		t.Errorf("admin in a private group: %s", got)
	}
}
