package snippets_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hearth-forge/hearth/core/domain"
)

// TestVisibilityMatrix reads, lists and downloads the private, internal
// and public snippets of a public, an internal and a private project as
// every kind of caller. The author wrote them as a reporter and has left
// the project since, so only the author rule lets them see their own.
func TestVisibilityMatrix(t *testing.T) {
	t.Parallel()
	eachDriver(t, testVisibilityMatrix)
}

func testVisibilityMatrix(t *testing.T, s *server) {
	author := s.person("author")
	outsider := s.person("outsider")
	external := s.person("external", "external", "true")
	guestP := s.person("guest")
	masterP := s.person("master")
	admin := s.person("boss", "admin", "true")

	type seeded struct {
		id                        int64
		private, internal, public int64
	}
	projects := map[string]seeded{}
	for _, vis := range []string{"public", "internal", "private"} {
		pid := s.project("p-"+vis, vis)
		s.member(pid, author, domain.Reporter)
		s.member(pid, guestP, domain.Guest)
		s.member(pid, masterP, domain.Master)
		p := seeded{id: pid}
		p.private = s.create(author.token, pid, "private one", "private").ID
		p.internal = s.create(author.token, pid, "internal one", "internal").ID
		p.public = s.create(author.token, pid, "public one", "public").ID
		s.unmember(pid, author)
		projects[vis] = p
	}

	all := []string{"private", "internal", "public"}
	callers := []struct {
		name  string
		token string
		// sees: per project visibility, the snippet visibilities shown;
		// nil: the project itself is hidden.
		sees map[string][]string
	}{
		{"anonymous", "", map[string][]string{"public": {"public"}}},
		{"non-member", outsider.token, map[string][]string{"public": {"internal", "public"}, "internal": {"internal", "public"}}},
		{"external", external.token, map[string][]string{"public": {"public"}}},
		{"guest", guestP.token, map[string][]string{"public": all, "internal": all, "private": all}},
		{"author", author.token, map[string][]string{"public": all, "internal": all}},
		{"master", masterP.token, map[string][]string{"public": all, "internal": all, "private": all}},
		{"admin", admin.token, map[string][]string{"public": all, "internal": all, "private": all}},
	}
	for _, c := range callers {
		for _, pvis := range all {
			p := projects[pvis]
			shown, projectShown := c.sees[pvis]
			what := fmt.Sprintf("%s on the %s project", c.name, pvis)
			if !projectShown {
				const gone = `{"message":"404 Project Not Found"}`
				s.ExpectBody(404, gone, "GET", snippetsPath(p.id), c.token, nil)
				s.ExpectBody(404, gone, "GET", snippetPath(p.id, p.public, ""), c.token, nil)
				s.ExpectBody(404, gone, "GET", snippetPath(p.id, p.public, "/raw"), c.token, nil)
				continue
			}
			var want []int64
			for _, svis := range []string{"public", "internal", "private"} { // newest first
				id := map[string]int64{"private": p.private, "internal": p.internal, "public": p.public}[svis]
				if !slices.Contains(shown, svis) {
					const gone = `{"message":"404 Snippet Not Found"}`
					s.ExpectBody(404, gone, "GET", snippetPath(p.id, id, ""), c.token, nil)
					s.ExpectBody(404, gone, "GET", snippetPath(p.id, id, "/raw"), c.token, nil)
					continue
				}
				want = append(want, id)
				var got snippetJSON
				s.Expect(200, "GET", snippetPath(p.id, id, ""), c.token, nil).Decode(t, &got)
				if got.ID != id || got.Visibility != svis || got.Author.ID != author.id {
					t.Errorf("%s: %s snippet read as %+v", what, svis, got)
				}
				if raw := s.raw(snippetPath(p.id, id, "/raw"), c.token); raw != "puts '"+svis+" one'\n" {
					t.Errorf("%s: raw %s snippet = %q", what, svis, raw)
				}
			}
			var list []snippetJSON
			resp := s.Expect(200, "GET", snippetsPath(p.id), c.token, nil)
			resp.Decode(t, &list)
			if got := ids(list); !slices.Equal(got, want) {
				t.Errorf("%s: list %v, want %v", what, got, want)
			}
			if total := resp.Header.Get("X-Total"); total != fmt.Sprint(len(want)) {
				t.Errorf("%s: X-Total %s, want %d", what, total, len(want))
			}
		}
	}
}
