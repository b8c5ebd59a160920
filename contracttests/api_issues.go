package contracttests

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The issues, notes, snippets, milestones and labels part of the API
// suite: one compact workflow.

// rawText GETs a plain-text endpoint (the JSON checks of do do not apply).
func (c apiClient) rawText(path, token string) (int, string, string) {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.srv.URL+"/api/v4"+path, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("PRIVATE-TOKEN", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(data)
}

// iidsOf lists the iids of a list reply.
func iidsOf(t *testing.T, r reply) []int {
	t.Helper()
	out := []int{}
	for _, x := range r.list(t) {
		out = append(out, int(x["iid"].(float64)))
	}
	return out
}

func apiIssuesNotesSnippets(t *testing.T, c apiClient, _ func(time.Duration)) {
	root := c.srv.RootToken
	repID, rep := newUser(c, "rita")
	guestID, guest := newUser(c, "gus")
	_, outsider := newUser(c, "olga")
	pid := int64(c.expect(201, "POST", "/projects", root, form("name", "tracker", "visibility", "public")).object(t)["id"].(float64))
	base := fmt.Sprintf("/projects/%d", pid)
	c.expect(201, "POST", base+"/members", root, form("user_id", fmt.Sprint(repID), "access_level", "20"))
	c.expect(201, "POST", base+"/members", root, form("user_id", fmt.Sprint(guestID), "access_level", "10"))
	list := func(path, token string, want ...int) {
		t.Helper()
		r := c.expect(200, "GET", path, token, nil)
		if got := iidsOf(t, r); fmt.Sprint(got) != fmt.Sprint(want) || r.header.Get("X-Total") != fmt.Sprint(len(want)) {
			t.Errorf("GET %s: iids %v (X-Total %q), want %v", path, got, r.header.Get("X-Total"), want)
		}
	}

	// Milestones: reporters write them.
	ms := c.expect(201, "POST", base+"/milestones", rep, form("title", "v1", "description", "First", "due_date", "2030-01-31")).object(t)
	wantKeys(t, ms, "id", "iid", "project_id", "title", "description", "state", "created_at", "updated_at", "due_date")
	if ms["iid"] != float64(1) || ms["state"] != "active" || ms["due_date"] != "2030-01-31" || !isoTime.MatchString(fmt.Sprint(ms["created_at"])) {
		t.Errorf("milestone %v", ms)
	}
	msID := int64(ms["id"].(float64))
	c.expect(409, "POST", base+"/milestones", rep, form("title", "v1"))
	wantError(t, c.expect(400, "POST", base+"/milestones", rep, form("description", "no title")), "title is missing")
	c.expectBody(403, `{"message":"403 Forbidden"}`, "POST", base+"/milestones", guest, form("title", "v9"))
	if cl := c.expect(200, "PUT", fmt.Sprintf("%s/milestones/%d", base, msID), rep, form("state_event", "close")).object(t); cl["state"] != "closed" {
		t.Errorf("closed milestone %v", cl)
	}
	if r := c.expect(200, "GET", base+"/milestones?state=closed", guest, nil); r.header.Get("X-Total") != "1" {
		t.Errorf("closed milestones X-Total %q", r.header.Get("X-Total"))
	}
	c.expect(200, "PUT", fmt.Sprintf("%s/milestones/%d", base, msID), rep, form("state_event", "activate"))

	// Labels.
	lb := c.expect(201, "POST", base+"/labels", rep, form("name", "bug", "color", "#d9534f")).object(t)
	wantKeys(t, lb, "id", "name", "color", "description", "open_issues_count", "closed_issues_count", "open_merge_requests_count", "priority", "subscribed")
	c.expectBody(409, `{"message":"Label already exists"}`, "POST", base+"/labels", rep, form("name", "bug", "color", "#000000"))
	wantField(t, c.expect(400, "POST", base+"/labels", rep, form("name", "odd", "color", "reddish")), "color", "must be a valid color code")
	wantError(t, c.expect(400, "POST", base+"/labels", rep, form("color", "#000000")), "name is missing")
	c.expect(403, "POST", base+"/labels", guest, form("name", "mine", "color", "#000000"))

	// Issues: a guest's privileged fields are dropped, a reporter's kept.
	is1 := c.expect(201, "POST", base+"/issues", guest, form("title", "Crash", "description", "It crashes",
		"labels", "bug,new", "confidential", "true", "milestone_id", fmt.Sprint(msID))).object(t)
	wantKeys(t, is1, "id", "iid", "project_id", "title", "description", "state", "created_at", "updated_at", "closed_at", "labels",
		"milestone", "assignee", "assignees", "author", "user_notes_count", "upvotes", "downvotes", "due_date", "confidential", "web_url", "subscribed")
	if is1["iid"] != float64(1) || is1["state"] != "opened" || is1["confidential"] != false || fmt.Sprint(is1["labels"]) != "[]" ||
		is1["milestone"] != nil || is1["due_date"] != nil || is1["closed_at"] != nil || fmt.Sprint(is1["assignees"]) != "[]" ||
		!strings.HasSuffix(fmt.Sprint(is1["web_url"]), "/root/tracker/issues/1") || !isoTime.MatchString(fmt.Sprint(is1["created_at"])) {
		t.Errorf("guest's issue %v", is1)
	}
	is2 := c.expect(201, "POST", base+"/issues", rep, form("title", "Leak", "confidential", "true", "labels", "bug,security",
		"milestone_id", fmt.Sprint(msID), "due_date", "2030-02-01")).object(t)
	mile, _ := is2["milestone"].(map[string]any)
	if is2["iid"] != float64(2) || is2["confidential"] != true || fmt.Sprint(is2["labels"]) != "[bug security]" || mile == nil ||
		mile["id"] != float64(msID) || is2["due_date"] != "2030-02-01" || is2["assignee"] != nil {
		t.Errorf("reporter's issue %v", is2)
	}
	wantError(t, c.expect(400, "POST", base+"/issues", guest, form("description", "untitled")), "title is missing")
	c.expect(401, "POST", base+"/issues", "", form("title", "anonymous"))
	c.expectBody(404, `{"message":"404 Milestone Not Found"}`, "POST", base+"/issues", rep, form("title", "x", "milestone_id", "999999"))
	c.expectBody(404, `{"message":"404 Issue Not Found"}`, "GET", base+"/issues/2", outsider, nil)
	c.expectBody(404, `{"message":"404 Issue Not Found"}`, "GET", base+"/issues/99", rep, nil)
	list(base+"/issues", outsider, 1)
	list(base+"/issues", rep, 2, 1)
	list(base+"/issues?labels=security", rep, 2)
	list(base+"/issues?milestone=v1", rep, 2)
	list(base+"/issues?milestone=No+Milestone", rep, 1)
	list(base+"/issues?labels=No+Label", rep, 1)
	list(base+"/issues?iids[]=1", rep, 1)
	list(base+"/issues?search=Crash", rep, 1)
	list(base+"/issues?order_by=created_at&sort=asc", rep, 1, 2)
	list("/issues?scope=all", outsider, 1)
	list("/issues", guest, 1)
	c.expect(400, "GET", base+"/issues?state=asleep", rep, nil)
	c.expect(400, "GET", base+"/issues?order_by=colour", rep, nil)
	r := c.expect(200, "GET", base+"/issues?per_page=1&page=2", rep, nil)
	if got := iidsOf(t, r); fmt.Sprint(got) != "[1]" || r.header.Get("X-Total-Pages") != "2" || r.header.Get("X-Prev-Page") != "1" {
		t.Errorf("page 2: %v %v", got, r.header)
	}

	// Update: the author and reporters; close and reopen.
	if up := c.expect(200, "PUT", base+"/issues/1", guest, form("title", "Crash on start")).object(t); up["title"] != "Crash on start" {
		t.Errorf("author's update %v", up)
	}
	c.expectBody(403, `{"message":"403 Forbidden"}`, "PUT", base+"/issues/1", outsider, form("title", "mine"))
	wantError(t, c.expect(400, "PUT", base+"/issues/1", rep, form("state_event", "nap")), "state_event does not have a valid value")
	if cl := c.expect(200, "PUT", base+"/issues/1", rep, form("state_event", "close")).object(t); cl["state"] != "closed" || cl["closed_at"] == nil {
		t.Errorf("closed %v", cl)
	}
	list(base+"/issues?state=closed", rep, 1)
	if re := c.expect(200, "PUT", base+"/issues/1", guest, form("state_event", "reopen")).object(t); re["state"] != "reopened" {
		t.Errorf("reopened %v", re)
	}
	list(base+"/issues?state=opened", rep, 2, 1)

	// Subscriptions and todos.
	if s := c.expect(201, "POST", base+"/issues/1/subscribe", outsider, nil).object(t); s["subscribed"] != true {
		t.Errorf("subscribe %v", s)
	}
	if again := c.expect(304, "POST", base+"/issues/1/subscribe", outsider, nil); len(again.body) != 0 {
		t.Errorf("304 with a body %q", again.body)
	}
	if s := c.expect(201, "POST", base+"/issues/1/unsubscribe", outsider, nil).object(t); s["subscribed"] != false {
		t.Errorf("unsubscribe %v", s)
	}
	c.expect(404, "POST", base+"/issues/2/subscribe", outsider, nil)
	if td := c.expect(201, "POST", base+"/issues/2/todo", rep, nil).object(t); td["action_name"] != "marked" || td["target_type"] != "Issue" {
		t.Errorf("todo %v", td)
	}
	c.expect(304, "POST", base+"/issues/2/todo", rep, nil)

	// Notes.
	n := c.expect(201, "POST", base+"/issues/1/notes", guest, form("body", "Me too")).object(t)
	wantKeys(t, n, "id", "body", "attachment", "author", "created_at", "updated_at", "system", "noteable_id", "noteable_type")
	if n["body"] != "Me too" || n["system"] != false || n["noteable_type"] != "Issue" || n["noteable_id"] != is1["id"] || n["attachment"] != nil {
		t.Errorf("note %v", n)
	}
	nid := int64(n["id"].(float64))
	wantError(t, c.expect(400, "POST", base+"/issues/1/notes", guest, form("nobody", "x")), "body is missing")
	c.expect(401, "POST", base+"/issues/1/notes", "", form("body", "anonymous"))
	c.expectBody(404, `{"message":"404 Issue Not Found"}`, "GET", base+"/issues/2/notes", outsider, nil)
	c.expectBody(404, `{"message":"404 Issue Not Found"}`, "POST", base+"/issues/2/notes", guest, form("body", "peek"))
	notes := c.expect(200, "GET", base+"/issues/1/notes?sort=asc", rep, nil)
	sawSystem, sawMine := false, false
	for _, x := range notes.list(t) {
		sawSystem = sawSystem || x["system"] == true && x["body"] == "closed"
		sawMine = sawMine || x["id"] == n["id"]
	}
	if !sawSystem || !sawMine {
		t.Errorf("notes of issue 1 (system %v, mine %v): %s", sawSystem, sawMine, notes.body)
	}
	c.expectBody(403, `{"message":"403 Forbidden"}`, "PUT", fmt.Sprintf("%s/issues/1/notes/%d", base, nid), rep, form("body", "edited"))
	if up := c.expect(200, "PUT", fmt.Sprintf("%s/issues/1/notes/%d", base, nid), guest, form("body", "Me too!")).object(t); up["body"] != "Me too!" {
		t.Errorf("edited note %v", up)
	}
	aw := c.expect(201, "POST", base+"/issues/1/notes", outsider, form("body", ":thumbsup:")).object(t)
	wantKeys(t, aw, "id", "name", "user", "created_at", "updated_at", "awardable_id", "awardable_type")
	if aw["name"] != "thumbsup" || aw["awardable_type"] != "Issue" || aw["awardable_id"] != is1["id"] {
		t.Errorf("award %v", aw)
	}
	if again := c.expect(201, "POST", base+"/issues/1/notes", outsider, form("body", ":+1:")).object(t); again["id"] != aw["id"] {
		t.Errorf("repeated award %v, first %v", again, aw)
	}
	if got := c.expect(200, "GET", base+"/issues/1", outsider, nil).object(t); got["upvotes"] != float64(1) || got["user_notes_count"] != float64(1) {
		t.Errorf("issue after a note and an award: upvotes %v, user_notes_count %v", got["upvotes"], got["user_notes_count"])
	}
	c.expect(204, "DELETE", fmt.Sprintf("%s/issues/1/notes/%d", base, nid), guest, nil)
	c.expectBody(404, `{"message":"404 Note Not Found"}`, "GET", fmt.Sprintf("%s/issues/1/notes/%d", base, nid), guest, nil)

	// Snippets: reporters write them; private ones are hidden even in a
	// public project.
	sn := c.expect(201, "POST", base+"/snippets", rep, form("title", "Hello", "file_name", "hello.rb", "code", "puts 1\n",
		"visibility", "private", "description", "Greets")).object(t)
	wantKeys(t, sn, "id", "title", "file_name", "description", "author", "updated_at", "created_at", "project_id", "web_url", "expires_at")
	wantNoKeys(t, sn, "content", "code")
	sid := int64(sn["id"].(float64))
	one := fmt.Sprintf("%s/snippets/%d", base, sid)
	if sn["title"] != "Hello" || sn["project_id"] != float64(pid) || !strings.HasSuffix(fmt.Sprint(sn["web_url"]), fmt.Sprintf("/root/tracker/snippets/%d", sid)) {
		t.Errorf("snippet %v", sn)
	}
	c.expect(403, "POST", base+"/snippets", guest, form("title", "x", "file_name", "x", "code", "x", "visibility", "public"))
	wantError(t, c.expect(400, "POST", base+"/snippets", rep, form("title", "x", "file_name", "x", "code", "x", "visibility", "secret")),
		"visibility does not have a valid value")
	wantError(t, c.expect(400, "POST", base+"/snippets", rep, form("title", "x", "file_name", "x", "visibility", "public")), "code is missing")
	if st, ct, body := c.rawText(one+"/raw", guest); st != 200 || !strings.HasPrefix(ct, "text/plain") || body != "puts 1\n" {
		t.Errorf("raw as a member: %d %q %q", st, ct, body)
	}
	if st, _, body := c.rawText(one+"/raw", outsider); st != 404 || strings.Contains(body, "puts") {
		t.Errorf("raw as an outsider: %d %q", st, body)
	}
	c.expectBody(404, `{"message":"404 Snippet Not Found"}`, "GET", one, outsider, nil)
	if r := c.expect(200, "GET", base+"/snippets", outsider, nil); len(r.list(t)) != 0 || r.header.Get("X-Total") != "0" {
		t.Errorf("snippets as an outsider: %s", r.body)
	}
	if r := c.expect(200, "GET", base+"/snippets", guest, nil); len(r.list(t)) != 1 {
		t.Errorf("snippets as a member: %s", r.body)
	}
	if up := c.expect(200, "PUT", one, rep, form("title", "Hello!")).object(t); up["title"] != "Hello!" || up["file_name"] != "hello.rb" {
		t.Errorf("updated snippet %v", up)
	}
	c.expect(403, "PUT", one, guest, form("title", "mine"))
	ua := c.expect(200, "GET", one+"/user_agent_detail", root, nil).object(t)
	wantKeys(t, ua, "user_agent", "ip_address", "akismet_submitted")
	if ua["ip_address"] != "127.0.0.1" || !strings.HasPrefix(fmt.Sprint(ua["user_agent"]), "Go-http-client") {
		t.Errorf("user agent detail %v", ua)
	}
	c.expect(403, "GET", one+"/user_agent_detail", rep, nil)
	snote := c.expect(201, "POST", one+"/notes", guest, form("body", "Nice")).object(t)
	if snote["noteable_type"] != "Snippet" || snote["noteable_id"] != sn["id"] {
		t.Errorf("snippet note %v", snote)
	}
	single := c.expect(200, "GET", fmt.Sprintf("%s/notes/%v", one, snote["id"]), rep, nil).object(t)
	wantKeys(t, single, "id", "title", "file_name", "author", "expires_at", "updated_at", "created_at")
	if single["id"] != snote["id"] || single["title"] != nil || single["file_name"] != nil {
		t.Errorf("single snippet note %v", single)
	}
	c.expectBody(404, `{"message":"404 Snippet Not Found"}`, "GET", one+"/notes", outsider, nil)

	// Counts follow what the reader may see.
	c.expect(200, "GET", fmt.Sprintf("%s/milestones/%d/issues", base, msID), outsider, nil)
	list(fmt.Sprintf("%s/milestones/%d/issues", base, msID), outsider)
	list(fmt.Sprintf("%s/milestones/%d/issues", base, msID), rep, 2)
	counts := func(token string) map[string]any {
		out := map[string]any{}
		for _, l := range c.expect(200, "GET", base+"/labels", token, nil).list(t) {
			out[fmt.Sprint(l["name"])] = l["open_issues_count"]
		}
		return out
	}
	if got := counts(outsider); got["bug"] != float64(0) || got["security"] != float64(0) {
		t.Errorf("label counts as an outsider %v", got)
	}
	if got := counts(rep); got["bug"] != float64(1) || got["security"] != float64(1) {
		t.Errorf("label counts as a reporter %v", got)
	}
	if got := counts(rep); got["new"] != nil {
		t.Errorf("the guest's dropped label was created: %v", got)
	}
	if p := c.expect(200, "GET", base, outsider, nil).object(t); p["open_issues_count"] != float64(1) {
		t.Errorf("open_issues_count as an outsider: %v", p["open_issues_count"])
	}
	if p := c.expect(200, "GET", base, rep, nil).object(t); p["open_issues_count"] != float64(2) {
		t.Errorf("open_issues_count as a reporter: %v", p["open_issues_count"])
	}

	// Labels: rename (carried over), delete.
	if up := c.expect(200, "PUT", base+"/labels", rep, form("name", "bug", "new_name", "defect", "color", "#FFAABB")).object(t); up["name"] != "defect" || up["color"] != "#FFAABB" {
		t.Errorf("renamed label %v", up)
	}
	if got := c.expect(200, "GET", base+"/issues/2", rep, nil).object(t); fmt.Sprint(got["labels"]) != "[defect security]" {
		t.Errorf("labels after a rename: %v", got["labels"])
	}
	c.expect(400, "PUT", base+"/labels", rep, form("name", "defect"))
	c.expect(204, "DELETE", base+"/labels?name=security", rep, nil)
	c.expectBody(404, `{"message":"404 Label Not Found"}`, "DELETE", base+"/labels?name=security", rep, nil)

	// Deletes.
	c.expect(403, "DELETE", one, guest, nil)
	if del := c.expect(200, "DELETE", one, rep, nil).object(t); del["id"] != sn["id"] {
		t.Errorf("deleted snippet %v", del)
	}
	if again := c.expect(200, "DELETE", one, rep, nil); len(again.body) != 0 {
		t.Errorf("deleting a gone snippet answered %q", again.body)
	}
	c.expect(204, "DELETE", fmt.Sprintf("%s/milestones/%d", base, msID), rep, nil)
	if got := c.expect(200, "GET", base+"/issues/2", rep, nil).object(t); got["milestone"] != nil {
		t.Errorf("milestone after its deletion: %v", got["milestone"])
	}
	c.expect(403, "DELETE", base+"/issues/2", rep, nil)
	c.expect(204, "DELETE", base+"/issues/2", root, nil)
	c.expectBody(404, `{"message":"404 Issue Not Found"}`, "GET", base+"/issues/2", rep, nil)

	// The feed: issue events, without the confidential one for outsiders.
	evs := c.expect(200, "GET", base+"/events?target_type=issue", rep, nil).list(t)
	if len(evs) == 0 {
		t.Errorf("no issue events")
	}
	for _, e := range c.expect(200, "GET", base+"/events", outsider, nil).list(t) {
		if e["target_title"] == "Leak" {
			t.Errorf("an outsider sees the confidential issue's event %v", e)
		}
	}
}
