package issues_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

var milestoneKeys = "created_at,description,due_date,id,iid,project_id,start_date,state,title,updated_at"

func milestonesPath(projectID int64) string { return fmt.Sprintf("/projects/%d/milestones", projectID) }

func milestonePath(projectID, id int64, suffix string) string {
	return fmt.Sprintf("/projects/%d/milestones/%d%s", projectID, id, suffix)
}

// TestMilestones: create, read, list filters, update with state_event,
// delete, the rights each needs, and the events published.
func TestMilestones(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("plans", "private")
	rep, gst, outsider := s.person("rep"), s.person("gst"), s.person("outsider")
	s.member(pid, rep, reporter)
	s.member(pid, gst, guest)
	s.takeEvents()

	data := s.Expect(201, "POST", milestonesPath(pid), rep.token, form("title", " v1.0 ", "description", "First",
		"due_date", "2017-07-01", "start_date", "2017-06-01")).Body
	if got := strings.Join(keys(t, data), ","); got != milestoneKeys {
		t.Errorf("keys %s, want %s", got, milestoneKeys)
	}
	var m1 milestoneJSON
	decode(t, data, &m1)
	if m1.IID != 1 || m1.ProjectID != pid || m1.Title != "v1.0" || m1.Description != "First" || m1.State != "active" ||
		str(m1.DueDate) != "2017-07-01" || str(m1.StartDate) != "2017-06-01" {
		t.Fatalf("created: %s", data)
	}
	var m2 milestoneJSON
	s.JSON(t, "POST", milestonesPath(pid), rep.token, form("title", "v2.0"), 201, &m2)
	if m2.IID != 2 || m2.DueDate != nil || m2.StartDate != nil {
		t.Fatalf("second: %+v", m2)
	}
	var got milestoneJSON
	s.JSON(t, "GET", milestonePath(pid, m1.ID, ""), gst.token, nil, 200, &got)
	if got.ID != m1.ID || got.Title != "v1.0" {
		t.Errorf("get: %+v", got)
	}

	s.ExpectBody(409, `{"message":"Milestone already exists"}`, "POST", milestonesPath(pid), rep.token, form("title", "v1.0"))
	s.ExpectBody(400, `{"error":"title is missing"}`, "POST", milestonesPath(pid), rep.token, form("description", "x"))
	s.ExpectBody(400, `{"message":{"due_date":["must be greater than start date"]}}`, "POST", milestonesPath(pid), rep.token,
		form("title", "bad", "due_date", "2017-01-01", "start_date", "2017-02-01"))
	s.ExpectBody(400, `{"error":"due_date is invalid"}`, "POST", milestonesPath(pid), rep.token, form("title", "bad", "due_date", "June"))
	s.ExpectBody(401, unauthorized, "POST", milestonesPath(pid), "", form("title", "x"))
	s.ExpectBody(403, forbidden, "POST", milestonesPath(pid), gst.token, form("title", "x"))
	s.ExpectBody(404, projectNotFound, "POST", milestonesPath(pid), outsider.token, form("title", "x"))
	s.ExpectBody(404, projectNotFound, "GET", milestonesPath(pid), outsider.token, nil)
	s.ExpectBody(404, milestoneMissing, "GET", milestonePath(pid, 999, ""), rep.token, nil)
	other := s.project("other", "private")
	var foreign milestoneJSON
	s.JSON(t, "POST", milestonesPath(other), s.RootToken, form("title", "elsewhere"), 201, &foreign)
	s.ExpectBody(404, milestoneMissing, "GET", milestonePath(pid, foreign.ID, ""), rep.token, nil)
	s.ExpectBody(404, milestoneMissing, "PUT", milestonePath(pid, foreign.ID, ""), rep.token, form("title", "stolen"))

	// Updates.
	var up milestoneJSON
	s.JSON(t, "PUT", milestonePath(pid, m2.ID, ""), rep.token, form("title", "v2.1", "description", "Second",
		"due_date", "2017-09-01"), 200, &up)
	if up.Title != "v2.1" || up.Description != "Second" || str(up.DueDate) != "2017-09-01" || up.State != "active" {
		t.Fatalf("update: %+v", up)
	}
	s.JSON(t, "PUT", milestonePath(pid, m2.ID, ""), rep.token, form("state_event", "close"), 200, &up)
	if up.State != "closed" {
		t.Fatalf("close: %+v", up)
	}
	s.JSON(t, "PUT", milestonePath(pid, m2.ID, ""), rep.token, form("state_event", "close"), 200, &up)
	s.JSON(t, "PUT", milestonePath(pid, m2.ID, ""), rep.token, form("state_event", "activate"), 200, &up)
	if up.State != "active" {
		t.Fatalf("activate: %+v", up)
	}
	s.JSON(t, "PUT", milestonePath(pid, m2.ID, ""), rep.token, form("state_event", "close", "due_date", ""), 200, &up)
	if up.DueDate != nil {
		t.Fatalf("clear due date: %+v", up)
	}
	s.ExpectBody(400, `{"error":"state_event does not have a valid value"}`, "PUT", milestonePath(pid, m2.ID, ""), rep.token, form("state_event", "reopen"))
	s.ExpectBody(400, `{"error":"title, description, due_date, start_date, state_event are missing, at least one parameter must be provided"}`,
		"PUT", milestonePath(pid, m2.ID, ""), rep.token, form("x", "y"))
	s.ExpectBody(409, `{"message":"Milestone already exists"}`, "PUT", milestonePath(pid, m2.ID, ""), rep.token, form("title", "v1.0"))
	s.ExpectBody(403, forbidden, "PUT", milestonePath(pid, m2.ID, ""), gst.token, form("title", "x"))

	// Lists.
	titles := func(query string) string {
		var list []milestoneJSON
		s.JSON(t, "GET", milestonesPath(pid)+query, gst.token, nil, 200, &list)
		var out []string
		for _, m := range list {
			out = append(out, m.Title)
		}
		sort.Strings(out) // the store orders by due date, where NULLs differ by database
		return join(out)
	}
	for _, c := range []struct{ query, want string }{
		{"", "v1.0,v2.1"},
		{"?state=active", "v1.0"},
		{"?state=closed", "v2.1"},
		{"?iids[]=2", "v2.1"},
		{"?iids[]=1&iids[]=2&state=active", "v1.0"},
		{"?search=Second", "v2.1"},
		{"?search=v1", "v1.0"},
	} {
		if got := titles(c.query); got != c.want {
			t.Errorf("GET milestones%s: %s, want %s", c.query, got, c.want)
		}
	}
	s.ExpectBody(400, `{"error":"state does not have a valid value"}`, "GET", milestonesPath(pid)+"?state=open", gst.token, nil)

	// Delete: issues lose the milestone.
	s.create(rep.token, pid, "Planned", "milestone_id", fmt.Sprint(m1.ID))
	s.takeEvents()
	s.ExpectBody(403, forbidden, "DELETE", milestonePath(pid, m1.ID, ""), gst.token, nil)
	s.Expect(204, "DELETE", milestonePath(pid, m1.ID, ""), rep.token, nil)
	s.ExpectBody(404, milestoneMissing, "GET", milestonePath(pid, m1.ID, ""), rep.token, nil)
	s.ExpectBody(404, milestoneMissing, "DELETE", milestonePath(pid, m1.ID, ""), rep.token, nil)
	if is := s.get(rep.token, pid, 1); is.Milestone != nil {
		t.Errorf("issue keeps a deleted milestone: %s", is.Raw)
	}
	if got := s.takeEvents(); join(got) != "milestone v1.0 destroyed" {
		t.Errorf("delete events: %v", got)
	}
}

// TestMilestoneEvents: created, closed, reopened (activate) are published;
// repeats publish nothing.
func TestMilestoneEvents(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("events", "private")
	var m milestoneJSON
	s.JSON(t, "POST", milestonesPath(pid), s.RootToken, form("title", "m"), 201, &m)
	for _, ev := range []string{"close", "close", "activate", "activate"} {
		s.JSON(t, "PUT", milestonePath(pid, m.ID, ""), s.RootToken, form("state_event", ev), 200, nil)
	}
	s.JSON(t, "PUT", milestonePath(pid, m.ID, ""), s.RootToken, form("description", "just text"), 200, nil)
	if got := join(s.takeEvents()); got != "milestone m created,milestone m closed,milestone m reopened" {
		t.Errorf("events: %s", got)
	}
}

// TestMilestoneIssuesAndMergeRequests: the issues of a milestone (with
// confidentiality applied) and its merge requests (for those who may read
// merge requests).
func TestMilestoneIssuesAndMergeRequests(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("milestone-lists", "private")
	dev, gst := s.person("dev"), s.person("gst")
	s.member(pid, dev, developer)
	s.member(pid, gst, guest)
	s.branches(pid)
	var m, other milestoneJSON
	s.JSON(t, "POST", milestonesPath(pid), dev.token, form("title", "v1"), 201, &m)
	s.JSON(t, "POST", milestonesPath(pid), dev.token, form("title", "v2"), 201, &other)
	s.create(dev.token, pid, "In v1", "milestone_id", fmt.Sprint(m.ID))
	s.create(dev.token, pid, "In v2", "milestone_id", fmt.Sprint(other.ID))
	s.create(dev.token, pid, "Secret in v1", "milestone_id", fmt.Sprint(m.ID), "confidential", "true")
	s.create(dev.token, pid, "No milestone")

	path := milestonePath(pid, m.ID, "/issues")
	if got := join(s.listIIDs(dev.token, path)); got != "3,1" {
		t.Errorf("developer: milestone issues %s, want 3,1", got)
	}
	list, resp := s.list(gst.token, path)
	if join(iids(list)) != "1" || resp.Header.Get("X-Total") != "1" {
		t.Errorf("guest: milestone issues %v (X-Total %s), want 1", iids(list), resp.Header.Get("X-Total"))
	}
	s.ExpectBody(404, milestoneMissing, "GET", milestonePath(pid, 999, "/issues"), dev.token, nil)

	var mr struct {
		IID       int64 `json:"iid"`
		Milestone *milestoneJSON
	}
	s.JSON(t, "POST", fmt.Sprintf("/projects/%d/merge_requests", pid), dev.token, form("source_branch", "feature",
		"target_branch", "master", "title", "Ship v1", "milestone_id", fmt.Sprint(m.ID)), 201, &mr)
	if mr.Milestone == nil || mr.Milestone.ID != m.ID {
		t.Fatalf("merge request milestone: %+v", mr)
	}
	var mrs []struct {
		IID   int64  `json:"iid"`
		Title string `json:"title"`
	}
	s.JSON(t, "GET", milestonePath(pid, m.ID, "/merge_requests"), dev.token, nil, 200, &mrs)
	if len(mrs) != 1 || mrs[0].Title != "Ship v1" {
		t.Errorf("milestone merge requests: %+v", mrs)
	}
	s.JSON(t, "GET", milestonePath(pid, other.ID, "/merge_requests"), dev.token, nil, 200, &mrs)
	if len(mrs) != 0 {
		t.Errorf("other milestone's merge requests: %+v", mrs)
	}
	// Guests of a private project do not read merge requests.
	s.JSON(t, "GET", milestonePath(pid, m.ID, "/merge_requests"), gst.token, nil, 200, &mrs)
	if len(mrs) != 0 {
		t.Errorf("guest reads merge requests of a milestone: %+v", mrs)
	}
}
