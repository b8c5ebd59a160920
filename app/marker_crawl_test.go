package app_test

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

// TestMarkerNeverLeaks plants unique markers in what only some may read —
// a confidential issue (title, description, a note, an award, a mention),
// an issue made confidential after it was opened, a private snippet of a
// public project (title, description, content, a note: members only,
// guests included) — then crawls
// every GET route of the router, and every filter of the issue lists, as
// each actor who may not see them: no body may carry a marker, and no
// count may include the confidential issues. Readers who may see them do
// (so the crawl can fail).
func TestMarkerNeverLeaks(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t)
	m := plantMarkers(t, srv)

	for _, a := range []struct {
		name, token string
		hidden      []string // markers this actor may not see
		openIssues  int      // open issues the actor may count
		secretCount int      // open issues labelled "secret" the actor may count
	}{
		{"anonymous", "", []string{m.secret, m.later, m.snip}, 1, 0},
		{"outsider", m.outsider, []string{m.secret, m.later, m.snip}, 1, 0},
		{"external", m.external, []string{m.secret, m.later, m.snip}, 1, 0},
		// A guest member reads the private snippet, not the confidential issues.
		{"guest", m.guest, []string{m.secret, m.later}, 1, 0},
		// The author of the issue made confidential later still sees it,
		// but nothing else.
		{"writer", m.writer, []string{m.secret, m.snip}, 2, 0},
	} {
		t.Run(a.name, func(t *testing.T) {
			m.crawl(t, a.token, a.hidden)
			m.counts(t, a.token, a.openIssues, a.secretCount)
			m.hiddenAre404(t, a.token, a.hidden)
		})
	}
	t.Run("readers see them", func(t *testing.T) { m.readersSee(t) })
}

// markers is the planted world.
type markers struct {
	srv                                    *apptest.Server
	secret, later, snip                    string // the markers
	pid, gid, ms                           int64
	pub, conf, laterIID, mr                int64 // iids
	snippet, confNote, laterNote, snipNote int64
	reporterID, writerID, rootID           int64
	reporter, guest, outsider, external    string // tokens
	writer                                 string
}

func newMarker(t *testing.T, prefix string) string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return prefix + hex.EncodeToString(b)
}

func plantMarkers(t *testing.T, srv *apptest.Server) *markers {
	root := srv.RootToken
	m := &markers{srv: srv, secret: newMarker(t, "zqsecret"), later: newMarker(t, "zqlater"), snip: newMarker(t, "zqsnip")}
	var guestID int64
	m.reporterID, m.reporter = createUser(t, srv, "mk-reporter")
	guestID, m.guest = createUser(t, srv, "mk-guest")
	_, m.outsider = createUser(t, srv, "mk-outsider")
	var externalID int64
	externalID, m.external = createUser(t, srv, "mk-external")
	srv.JSON(t, "PUT", fmt.Sprintf("/users/%d", externalID), root, vals("external", "true"), 200, nil)
	m.writerID, m.writer = createUser(t, srv, "mk-writer")
	var me struct{ ID int64 }
	srv.JSON(t, "GET", "/user", root, nil, 200, &me)
	m.rootID = me.ID

	var g, p struct{ ID int64 }
	srv.JSON(t, "POST", "/groups", root, vals("name", "mk-group", "path", "mk-group", "visibility", "public"), 201, &g)
	srv.JSON(t, "POST", "/projects", root, vals("name", "mk-project", "namespace_id", fmt.Sprint(g.ID), "visibility", "public"), 201, &p)
	m.gid, m.pid = g.ID, p.ID
	base := fmt.Sprintf("/projects/%d", m.pid)
	srv.JSON(t, "POST", base+"/members", root, vals("user_id", fmt.Sprint(m.reporterID), "access_level", "20"), 201, nil)
	srv.JSON(t, "POST", base+"/members", root, vals("user_id", fmt.Sprint(guestID), "access_level", "10"), 201, nil)
	for _, c := range []struct{ branch, start, file string }{{"master", "", "README.md"}, {"fix", "master", "fix.txt"}} {
		body := map[string]any{"branch": c.branch, "commit_message": "Add " + c.file,
			"actions": []map[string]string{{"action": "create", "file_path": c.file, "content": "plain\n"}}}
		if c.start != "" {
			body["start_branch"] = c.start
		}
		srv.JSON(t, "POST", base+"/repository/commits", root, body, 201, nil)
	}

	obj := func(token, path string, body any) map[string]any {
		t.Helper()
		var out map[string]any
		srv.JSON(t, "POST", path, token, body, 201, &out)
		return out
	}
	num := func(o map[string]any, k string) int64 { return int64(o[k].(float64)) }
	m.ms = num(obj(m.reporter, base+"/milestones", vals("title", "Release")), "id")
	ms := fmt.Sprint(m.ms)
	m.pub = num(obj(root, base+"/issues", vals("title", "Public issue", "labels", "shared", "milestone_id", ms)), "iid")
	conf := obj(m.reporter, base+"/issues", vals("title", "Secret "+m.secret, "description", "Details "+m.secret+" for @mk-guest and @mk-outsider",
		"confidential", "true", "labels", "shared,secret", "milestone_id", ms))
	if conf["confidential"] != true {
		t.Fatalf("a reporter's confidential issue: %v", conf)
	}
	m.conf = num(conf, "iid")
	// Opened in public by a non-member, made confidential by a reporter.
	m.laterIID = num(obj(m.writer, base+"/issues", vals("title", "Later "+m.later, "description", "About "+m.later)), "iid")
	var made map[string]any
	srv.JSON(t, "PUT", fmt.Sprintf("%s/issues/%d", base, m.laterIID), m.reporter,
		vals("confidential", "true", "labels", "shared", "milestone_id", ms), 200, &made)
	if made["confidential"] != true {
		t.Fatalf("made confidential: %v", made)
	}
	m.confNote = num(obj(m.reporter, fmt.Sprintf("%s/issues/%d/notes", base, m.conf), vals("body", "Note "+m.secret)), "id")
	m.laterNote = num(obj(m.writer, fmt.Sprintf("%s/issues/%d/notes", base, m.laterIID), vals("body", "Note "+m.later)), "id")
	obj(m.reporter, fmt.Sprintf("%s/issues/%d/notes", base, m.conf), vals("body", ":thumbsup:"))
	obj(m.reporter, fmt.Sprintf("%s/issues/%d/todo", base, m.conf), nil)
	m.snippet = num(obj(m.reporter, base+"/snippets", vals("title", "Snippet "+m.snip, "file_name", "s.txt",
		"description", "Describes "+m.snip, "code", "content "+m.snip, "visibility", "private")), "id")
	m.snipNote = num(obj(m.reporter, fmt.Sprintf("%s/snippets/%d/notes", base, m.snippet), vals("body", "Snippet note "+m.snip)), "id")
	m.mr = num(obj(root, base+"/merge_requests", vals("source_branch", "fix", "target_branch", "master", "title", "Fix",
		"description", fmt.Sprintf("Closes #%d and #%d", m.conf, m.laterIID), "milestone_id", ms)), "iid")
	return m
}

// paramValues are what the crawl puts in each path parameter.
func (m *markers) paramValues(pattern, name string) []string {
	ids := func(v ...int64) []string {
		out := make([]string, len(v))
		for i, x := range v {
			out[i] = fmt.Sprint(x)
		}
		return out
	}
	users := ids(m.reporterID, m.writerID, m.rootID)
	switch name {
	case "id":
		switch {
		case strings.HasPrefix(pattern, "/api/v4/projects/"):
			return append(ids(m.pid), url.PathEscape("mk-group/mk-project"))
		case strings.HasPrefix(pattern, "/api/v4/users/"):
			return users
		case strings.HasPrefix(pattern, "/api/v4/groups/"):
			return ids(m.gid)
		}
	case "user_id":
		return users
	case "issue_iid":
		return ids(m.pub, m.conf, m.laterIID)
	case "merge_request_iid":
		return ids(m.mr)
	case "snippet_id":
		return ids(m.snippet)
	case "note_id":
		return ids(m.confNote, m.laterNote, m.snipNote)
	case "milestone_id":
		return ids(m.ms)
	case "sha", "branch":
		return []string{"master"}
	case "file_path":
		return []string{"README.md"}
	case "format":
		return []string{"tar.gz"}
	}
	return []string{"1"}
}

// queryVariants are the filters tried on a route besides per_page=100.
func (m *markers) queryVariants(pattern string) []string {
	issueFilters := []string{"state=all", "state=opened", "state=closed", "search=" + m.secret, "search=" + m.later,
		"search=Secret", "labels=secret", "labels=shared", "milestone=Release", "order_by=updated_at&sort=asc",
		fmt.Sprintf("iids[]=%d&iids[]=%d", m.conf, m.laterIID), fmt.Sprintf("author_id=%d", m.reporterID),
		fmt.Sprintf("author_id=%d", m.writerID), "confidential=true"}
	switch {
	case strings.HasSuffix(pattern, "/issues") && !strings.HasPrefix(pattern, "/api/v4/issues"):
		return issueFilters
	case pattern == "/api/v4/issues":
		var out []string
		for _, scope := range []string{"all", "created-by-me", "created_by_me", "assigned-to-me"} {
			for _, f := range issueFilters {
				out = append(out, "scope="+scope+"&"+f)
			}
		}
		return out
	case strings.HasSuffix(pattern, "/events"):
		return []string{"target_type=issue", "target_type=note", "target_type=snippet", "action=created", "action=commented", "sort=asc"}
	case strings.HasSuffix(pattern, "/notes"):
		return []string{"sort=asc", "order_by=updated_at"}
	case pattern == "/api/v4/projects" || strings.HasSuffix(pattern, "/projects"):
		return []string{"search=mk-project", "statistics=true", "with_issues_enabled=true", "membership=true"}
	case pattern == "/api/v4/todos":
		return []string{"state=done", "type=Issue", "action=mentioned", "action=marked"}
	case strings.HasSuffix(pattern, "/milestones"):
		return []string{"search=Release", "state=active"}
	case strings.HasSuffix(pattern, "/merge_requests"):
		return []string{"state=all", "scope=all"}
	}
	return nil
}

// expandPattern lists the paths of a route pattern for every combination
// of parameter values.
func (m *markers) expandPattern(pattern string) []string {
	paths := []string{""}
	for rest := pattern; rest != ""; {
		i := strings.Index(rest, "{")
		if i < 0 {
			for k := range paths {
				paths[k] += rest
			}
			break
		}
		j := strings.Index(rest, "}")
		lit, name := rest[:i], rest[i+1:j]
		rest = rest[j+1:]
		var next []string
		for _, p := range paths {
			for _, v := range m.paramValues(pattern, name) {
				next = append(next, p+lit+v)
			}
		}
		paths = next
	}
	return paths
}

// crawl reads every GET route of the API with every filter as token and
// fails on any body carrying a hidden marker.
func (m *markers) crawl(t *testing.T, token string, hidden []string) {
	requests := 0
	for _, r := range m.srv.Router.Routes() {
		if r.Method != http.MethodGet || !strings.HasPrefix(r.Pattern, "/api/v4/") {
			continue
		}
		for _, path := range m.expandPattern(r.Pattern) {
			for _, q := range append([]string{""}, m.queryVariants(r.Pattern)...) {
				target := strings.TrimPrefix(path, "/api/v4") + "?per_page=100"
				if q != "" {
					target += "&" + q
				}
				resp, body := m.srv.Do(t, "GET", target, token, nil)
				requests++
				if resp.StatusCode >= 500 {
					t.Errorf("GET %s: %d %s", target, resp.StatusCode, body)
				}
				for _, mk := range hidden {
					if strings.Contains(string(body), mk) {
						t.Errorf("LEAK: GET %s (%s) answered %d with the marker of %s: %.400s", target, r.Module, resp.StatusCode, m.what(mk), body)
					}
				}
			}
		}
	}
	t.Logf("%d requests crawled", requests)
}

func (m *markers) what(mk string) string {
	switch mk {
	case m.later:
		return "the issue made confidential later"
	case m.snip:
		return "the private snippet"
	}
	return "the confidential issue"
}

// counts: open_issues_count of the project (single read and lists), the
// labels' open_issues_count, and X-Total of the issue lists leave out the
// confidential issues the actor may not see.
func (m *markers) counts(t *testing.T, token string, open, secret int) {
	srv := m.srv
	var p struct {
		OpenIssuesCount *int `json:"open_issues_count"`
	}
	srv.JSON(t, "GET", fmt.Sprintf("/projects/%d", m.pid), token, nil, 200, &p)
	if p.OpenIssuesCount == nil || *p.OpenIssuesCount != open {
		t.Errorf("GET /projects/%d: open_issues_count %v, want %d", m.pid, deref(p.OpenIssuesCount), open)
	}
	for _, list := range []string{"/projects?search=mk-project", fmt.Sprintf("/groups/%d/projects", m.gid)} {
		var l []struct {
			ID              int64
			OpenIssuesCount *int `json:"open_issues_count"`
		}
		srv.JSON(t, "GET", list, token, nil, 200, &l)
		found := false
		for _, x := range l {
			if x.ID == m.pid {
				found = true
				if x.OpenIssuesCount == nil || *x.OpenIssuesCount != open {
					t.Errorf("GET %s: open_issues_count %v, want %d", list, deref(x.OpenIssuesCount), open)
				}
			}
		}
		if !found {
			t.Errorf("GET %s does not list the project", list)
		}
	}
	var labels []struct {
		Name            string
		OpenIssuesCount int `json:"open_issues_count"`
	}
	srv.JSON(t, "GET", fmt.Sprintf("/projects/%d/labels", m.pid), token, nil, 200, &labels)
	got := map[string]int{}
	for _, l := range labels {
		got[l.Name] = l.OpenIssuesCount
	}
	if got["shared"] != open || got["secret"] != secret {
		t.Errorf("label open_issues_count: shared %d (want %d), secret %d (want %d)", got["shared"], open, got["secret"], secret)
	}
	for _, list := range []string{
		fmt.Sprintf("/projects/%d/issues?state=all", m.pid),
		fmt.Sprintf("/projects/%d/issues?labels=shared", m.pid),
		fmt.Sprintf("/projects/%d/milestones/%d/issues", m.pid, m.ms),
	} {
		resp, body := srv.Do(t, "GET", list, token, nil)
		var l []issueJSON
		if resp.StatusCode != 200 || json.Unmarshal(body, &l) != nil {
			t.Errorf("GET %s: %d %s", list, resp.StatusCode, body)
			continue
		}
		if resp.Header.Get("X-Total") != fmt.Sprint(open) || len(l) != open {
			t.Errorf("GET %s: X-Total %q, %d issues, want %d", list, resp.Header.Get("X-Total"), len(l), open)
		}
	}
	resp, body := srv.Do(t, "GET", fmt.Sprintf("/projects/%d/issues?labels=secret", m.pid), token, nil)
	if resp.Header.Get("X-Total") != fmt.Sprint(secret) {
		t.Errorf("labels=secret: X-Total %q, want %d: %.300s", resp.Header.Get("X-Total"), secret, body)
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// hiddenAre404: the hidden issues, their notes and the private snippet
// (with its raw content and notes) are 404 to the actor, as anything
// missing is.
func (m *markers) hiddenAre404(t *testing.T, token string, hidden []string) {
	base := fmt.Sprintf("/projects/%d", m.pid)
	var paths []string
	for _, mk := range hidden {
		switch mk {
		case m.secret:
			paths = append(paths, fmt.Sprintf("%s/issues/%d", base, m.conf), fmt.Sprintf("%s/issues/%d/notes", base, m.conf),
				fmt.Sprintf("%s/issues/%d/notes/%d", base, m.conf, m.confNote))
		case m.later:
			paths = append(paths, fmt.Sprintf("%s/issues/%d", base, m.laterIID), fmt.Sprintf("%s/issues/%d/notes", base, m.laterIID),
				fmt.Sprintf("%s/issues/%d/notes/%d", base, m.laterIID, m.laterNote))
		case m.snip:
			paths = append(paths, fmt.Sprintf("%s/snippets/%d", base, m.snippet), fmt.Sprintf("%s/snippets/%d/raw", base, m.snippet),
				fmt.Sprintf("%s/snippets/%d/notes", base, m.snippet), fmt.Sprintf("%s/snippets/%d/notes/%d", base, m.snippet, m.snipNote))
		}
	}
	for _, p := range paths {
		if resp, body := m.srv.Do(t, "GET", p, token, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404; %.300s", p, resp.StatusCode, body)
		}
	}
}

// readersSee: the reporter, the writer and root see what the others may
// not, through the same routes.
func (m *markers) readersSee(t *testing.T) {
	base := fmt.Sprintf("/projects/%d", m.pid)
	for _, c := range []struct {
		who, token, path string
		want             []string
	}{
		{"reporter", m.reporter, base + "/issues?search=" + m.secret, []string{m.secret}},
		{"reporter", m.reporter, base + "/issues?state=all", []string{m.secret, m.later}},
		{"reporter", m.reporter, fmt.Sprintf("%s/issues/%d", base, m.conf), []string{m.secret}},
		{"reporter", m.reporter, fmt.Sprintf("%s/issues/%d/notes", base, m.conf), []string{m.secret}},
		{"reporter", m.reporter, fmt.Sprintf("%s/snippets/%d", base, m.snippet), []string{m.snip}},
		{"reporter", m.reporter, fmt.Sprintf("%s/snippets/%d/raw", base, m.snippet), []string{m.snip}},
		{"guest", m.guest, base + "/snippets", []string{m.snip}},
		{"guest", m.guest, fmt.Sprintf("%s/snippets/%d/notes", base, m.snippet), []string{m.snip}},
		{"reporter", m.reporter, fmt.Sprintf("%s/merge_requests/%d/closes_issues", base, m.mr), []string{m.secret, m.later}},
		{"reporter", m.reporter, fmt.Sprintf("%s/milestones/%d/issues", base, m.ms), []string{m.secret, m.later}},
		{"reporter", m.reporter, base + "/events?per_page=100", []string{m.secret, m.snip}},
		{"reporter", m.reporter, "/issues?scope=all", []string{m.secret, m.later}},
		{"writer", m.writer, fmt.Sprintf("%s/issues/%d", base, m.laterIID), []string{m.later}},
		{"writer", m.writer, fmt.Sprintf("%s/issues/%d/notes", base, m.laterIID), []string{m.later}},
		{"writer", m.writer, "/issues", []string{m.later}},
		{"root", m.srv.RootToken, "/issues?scope=all", []string{m.secret, m.later}},
		{"root", m.srv.RootToken, base + "/events?per_page=100", []string{m.secret, m.later}},
	} {
		resp, body := m.srv.Do(t, "GET", c.path, c.token, nil)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: GET %s: %d %.300s", c.who, c.path, resp.StatusCode, body)
			continue
		}
		for _, mk := range c.want {
			if !strings.Contains(string(body), mk) {
				t.Errorf("%s: GET %s lacks the marker of %s: %.400s", c.who, c.path, m.what(mk), body)
			}
		}
	}
	m.counts(t, m.reporter, 3, 1)
	m.counts(t, m.srv.RootToken, 3, 1)
}
