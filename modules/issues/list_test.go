package issues_test

import (
	"fmt"
	"net/url"
	"testing"
	"time"
)

// TestListFilters checks every filter of GET /projects/:id/issues, its
// validation and its pagination.
func TestListFilters(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("lists", "private")
	dev, gst, rep := s.person("dev"), s.person("gst"), s.person("rep")
	s.member(pid, dev, developer)
	s.member(pid, gst, guest)
	s.member(pid, rep, reporter)
	for _, title := range []string{"v1", "v2"} {
		s.JSON(t, "POST", fmt.Sprintf("/projects/%d/milestones", pid), dev.token, form("title", title), 201, nil)
	}
	var ms []milestoneJSON
	s.JSON(t, "GET", fmt.Sprintf("/projects/%d/milestones?search=v1", pid), dev.token, nil, 200, &ms)
	if len(ms) != 1 {
		t.Fatalf("milestone v1: %+v", ms)
	}
	var v2 []milestoneJSON
	s.JSON(t, "GET", fmt.Sprintf("/projects/%d/milestones?search=v2", pid), dev.token, nil, 200, &v2)

	var created []string
	add := func(token, title string, extra ...string) {
		s.Advance(time.Minute)
		created = append(created, s.create(token, pid, title, extra...).CreatedAt)
	}
	add(dev.token, "Alpha crash", "labels", "bug", "milestone_id", fmt.Sprint(ms[0].ID), "assignee_id", fmt.Sprint(gst.id))
	add(gst.token, "Beta idea", "description", "needle in a haystack")
	add(dev.token, "Gamma", "labels", "bug,ui", "milestone_id", fmt.Sprint(v2[0].ID))
	add(rep.token, "Delta", "labels", "ui", "assignee_id", fmt.Sprint(dev.id))
	s.Advance(time.Second)
	s.update(dev.token, pid, 3, "state_event", "close")
	s.Advance(time.Minute)
	s.update(dev.token, pid, 2, "description", "needle in a haystack, edited")

	between := func(i int) string {
		ts, err := time.Parse(time.RFC3339, created[i])
		if err != nil {
			t.Fatal(err)
		}
		return url.QueryEscape(ts.Add(30 * time.Second).Format(time.RFC3339))
	}
	base := issuesPath(pid)
	for _, c := range []struct{ query, want string }{
		{"", "4,3,2,1"},
		{"?sort=asc", "1,2,3,4"},
		{"?order_by=created_at&sort=desc", "4,3,2,1"},
		{"?order_by=updated_at", "2,3,4,1"},
		{"?order_by=updated_at&sort=asc", "1,4,3,2"},
		{"?state=opened", "4,2,1"},
		{"?state=closed", "3"},
		{"?state=all", "4,3,2,1"},
		{"?labels=bug", "3,1"},
		{"?labels=bug,ui", "3"},
		{"?labels[]=ui", "4,3"},
		{"?labels=No+Label", "2"},
		{"?milestone=v1", "1"},
		{"?milestone=v2&state=closed", "3"},
		{"?milestone=No+Milestone", "4,2"},
		{"?milestone=None", "4,2"},
		{"?milestone=v9", ""},
		{"?iids[]=1&iids[]=3", "3,1"},
		{"?iids=4", "4"},
		{"?search=needle", "2"},
		{"?search=Gamma", "3"},
		{fmt.Sprintf("?author_id=%d", dev.id), "3,1"},
		{fmt.Sprintf("?assignee_id=%d", gst.id), "1"},
		{"?created_after=" + between(1), "4,3"},
		{"?created_before=" + between(1), "2,1"},
		{"?created_after=" + between(0) + "&created_before=" + between(2) + "&sort=asc", "2,3"},
		{fmt.Sprintf("?author_id=%d&labels=ui&state=opened", rep.id), "4"},
	} {
		if got := join(s.listIIDs(gst.token, base+c.query)); got != c.want {
			t.Errorf("GET %s: %s, want %s", c.query, got, c.want)
		}
	}

	for _, c := range []struct{ query, want string }{
		{"?state=merged", `{"error":"state does not have a valid value"}`},
		{"?order_by=title", `{"error":"order_by does not have a valid value"}`},
		{"?sort=up", `{"error":"sort does not have a valid value"}`},
		{"?created_after=yesterday", `{"error":"created_after is invalid"}`},
		{"?iids[]=x", `{"error":"iids is invalid"}`},
	} {
		s.ExpectBody(400, c.want, "GET", base+c.query, gst.token, nil)
	}

	list, resp := s.list(gst.token, base+"?per_page=3&page=2")
	if join(iids(list)) != "1" || resp.Header.Get("X-Total") != "4" || resp.Header.Get("X-Total-Pages") != "2" ||
		resp.Header.Get("X-Page") != "2" || resp.Header.Get("X-Prev-Page") != "1" || resp.Header.Get("X-Next-Page") != "" {
		t.Errorf("page 2: %v, headers %v", iids(list), resp.Header)
	}
	if _, resp := s.list(gst.token, base+"?milestone=v9"); resp.Header.Get("X-Total") != "0" {
		t.Errorf("no match: X-Total %s", resp.Header.Get("X-Total"))
	}
}

// TestListAllScopes: GET /issues is for signed-in users; it defaults to
// the caller's own issues and covers every project whose issues they may
// read, but not projects with the tracker off.
func TestListAllScopes(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	mine := s.project("mine", "private")
	public := s.project("open", "public")
	hidden := s.project("hidden", "private")
	off := s.project("off", "public")
	dev, gst := s.person("dev"), s.person("gst")
	s.member(mine, dev, developer)
	s.member(mine, gst, guest)

	s.create(dev.token, mine, "Dev's", "assignee_id", fmt.Sprint(gst.id))
	s.create(gst.token, mine, "Guest's")
	s.create(s.RootToken, public, "Public")
	s.create(gst.token, public, "Guest's public")
	s.create(s.RootToken, hidden, "Hidden")
	s.create(gst.token, off, "Guest's, tracker off later")
	s.JSON(t, "PUT", fmt.Sprintf("/projects/%d", off), s.RootToken, form("issues_enabled", "false"), 200, nil)

	titles := func(token, query string) string {
		list, _ := s.list(token, "/issues"+query)
		var out []string
		for _, is := range list {
			out = append(out, is.Title)
		}
		return join(out)
	}
	for _, c := range []struct{ query, want string }{
		{"", "Guest's public,Guest's"},
		{"?scope=created-by-me", "Guest's public,Guest's"},
		{"?scope=created_by_me&sort=asc", "Guest's,Guest's public"},
		{"?scope=assigned-to-me", "Dev's"},
		{"?scope=assigned_to_me", "Dev's"},
		{"?scope=all", "Guest's public,Public,Guest's,Dev's"},
		{"?scope=all&search=ublic", "Guest's public,Public"},
		{"?scope=all&milestone=No+Milestone&state=opened", "Guest's public,Public,Guest's,Dev's"},
	} {
		if got := titles(gst.token, c.query); got != c.want {
			t.Errorf("gst GET /issues%s: %s, want %s", c.query, got, c.want)
		}
	}
	if got := titles(s.RootToken, "?scope=all"); got != "Hidden,Guest's public,Public,Guest's,Dev's" {
		t.Errorf("admin GET /issues?scope=all: %s", got)
	}
	s.ExpectBody(401, unauthorized, "GET", "/issues", "", nil)
	s.ExpectBody(400, `{"error":"scope does not have a valid value"}`, "GET", "/issues?scope=everything", gst.token, nil)
}

// TestListQueriesConstant: a page of issues costs the same number of
// queries whatever the number of issues, authors, assignees and
// milestones on it.
func TestListQueriesConstant(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("queries", "private")
	var people []person
	for i := range 6 {
		p := s.person(fmt.Sprintf("u%d", i))
		s.member(pid, p, developer)
		people = append(people, p)
	}
	var ms []int64
	for i := range 3 {
		var m milestoneJSON
		s.JSON(t, "POST", milestonesPath(pid), s.RootToken, form("title", fmt.Sprintf("m%d", i)), 201, &m)
		ms = append(ms, m.ID)
	}
	add := func(n int) {
		for i := range n {
			p := people[i%len(people)]
			s.create(p.token, pid, fmt.Sprintf("issue %d", i), "assignee_id", fmt.Sprint(people[(i+1)%len(people)].id),
				"milestone_id", fmt.Sprint(ms[i%len(ms)]), "labels", fmt.Sprintf("l%d", i%4))
		}
	}
	cost := func() int64 {
		before := s.Queries()
		list, _ := s.list(people[0].token, issuesPath(pid)+"?per_page=100")
		if len(list) == 0 {
			t.Fatal("empty list")
		}
		return s.Queries() - before
	}
	add(1)
	small := cost()
	add(20)
	if big := cost(); big != small {
		t.Errorf("queries for 1 issue: %d, for 21: %d", small, big)
	}
}
