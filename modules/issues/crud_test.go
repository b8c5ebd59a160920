package issues_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

var issueKeys = "assignee,assignees,author,closed_at,confidential,created_at,description,downvotes,due_date,id,iid," +
	"labels,milestone,project_id,state,subscribed,title,updated_at,upvotes,user_notes_count,web_url"

// TestCreateAndGet: a developer opens an issue with every field; labels
// are created on the way, the assignee gets a todo, the created event is
// published, and the entity has GitLab's keys with nulls where empty.
func TestCreateAndGet(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("tracker", "private")
	dev, gst := s.person("dev"), s.person("gst")
	s.member(pid, dev, developer)
	s.member(pid, gst, guest)
	var ms milestoneJSON
	s.JSON(t, "POST", fmt.Sprintf("/projects/%d/milestones", pid), dev.token, form("title", "v1"), 201, &ms)
	s.takeEvents()

	is := s.create(dev.token, pid, "  Crash on start ", "description", "It crashes", "labels", "bug, backend,bug",
		"milestone_id", fmt.Sprint(ms.ID), "assignee_id", fmt.Sprint(gst.id), "due_date", "2017-06-01",
		"created_at", "2016-01-01T00:00:00Z")
	if got := strings.Join(keys(t, is.Raw), ","); got != issueKeys {
		t.Errorf("keys %s, want %s", got, issueKeys)
	}
	if is.IID != 1 || is.ProjectID != pid || is.Title != "Crash on start" || is.Description != "It crashes" ||
		is.State != "opened" || is.Confidential || is.ClosedAt != nil || is.UserNotesCount != 0 || is.Upvotes != 0 {
		t.Fatalf("created: %s", is.Raw)
	}
	if join(is.Labels) != "backend,bug" || is.Milestone == nil || is.Milestone.ID != ms.ID || is.Milestone.Title != "v1" {
		t.Errorf("labels %v milestone %+v", is.Labels, is.Milestone)
	}
	if is.Author == nil || is.Author.ID != dev.id || is.Assignee == nil || is.Assignee.ID != gst.id ||
		len(is.Assignees) != 1 || is.Assignees[0].ID != gst.id {
		t.Errorf("author/assignee: %s", is.Raw)
	}
	if str(is.DueDate) != "2017-06-01" || strings.HasPrefix(is.CreatedAt, "2016") {
		t.Errorf("due_date %s created_at %s (a developer's created_at is ignored)", str(is.DueDate), is.CreatedAt)
	}
	if want := s.URL + "/root/tracker/issues/1"; is.WebURL != want || !is.Subscribed {
		t.Errorf("web_url %s (want %s), subscribed %v", is.WebURL, want, is.Subscribed)
	}
	if got := s.takeEvents(); join(got) != fmt.Sprintf("issue 1 created by %d", dev.id) {
		t.Errorf("events %v", got)
	}
	if got := s.get(gst.token, pid, 1); got.ID != is.ID || got.Title != is.Title || !got.Subscribed {
		t.Errorf("get as the assignee: %s", got.Raw)
	}
	if got := s.get(s.RootToken, pid, 1); got.Subscribed {
		t.Errorf("root is subscribed without being author or assignee")
	}

	var labels []struct {
		Name, Color string
	}
	s.JSON(t, "GET", fmt.Sprintf("/projects/%d/labels", pid), dev.token, nil, 200, &labels)
	if fmt.Sprint(labels) != "[{backend #428BCA} {bug #428BCA}]" {
		t.Errorf("labels created by naming them: %v", labels)
	}

	var todos []struct {
		ActionName string    `json:"action_name"`
		TargetType string    `json:"target_type"`
		TargetURL  string    `json:"target_url"`
		Target     issueJSON `json:"target"`
		Author     userJSON  `json:"author"`
	}
	s.JSON(t, "GET", "/todos", gst.token, nil, 200, &todos)
	if len(todos) != 1 || todos[0].ActionName != "assigned" || todos[0].TargetType != "Issue" ||
		todos[0].Target.ID != is.ID || todos[0].TargetURL != is.WebURL || todos[0].Author.ID != dev.id {
		t.Errorf("assignee's todos: %+v", todos)
	}

	// Administrators (and owners) may backdate.
	old := s.create(s.RootToken, pid, "Imported", "created_at", "2016-01-01T10:00:00.123Z")
	if old.CreatedAt != "2016-01-01T10:00:00.123Z" || old.IID != 2 {
		t.Errorf("admin's created_at: %s", old.Raw)
	}

	s.ExpectBody(400, `{"error":"title is missing"}`, "POST", issuesPath(pid), dev.token, form("description", "x"))
	s.ExpectBody(400, `{"error":"title is missing"}`, "POST", issuesPath(pid), dev.token, form("title", "  "))
	s.ExpectBody(400, `{"error":"due_date is invalid"}`, "POST", issuesPath(pid), dev.token, form("title", "T", "due_date", "soon"))
	s.ExpectBody(404, milestoneMissing, "POST", issuesPath(pid), dev.token, form("title", "T", "milestone_id", "999"))
	other := s.project("other", "private")
	var foreign milestoneJSON
	s.JSON(t, "POST", fmt.Sprintf("/projects/%d/milestones", other), s.RootToken, form("title", "v1"), 201, &foreign)
	s.ExpectBody(404, milestoneMissing, "POST", issuesPath(pid), dev.token, form("title", "T", "milestone_id", fmt.Sprint(foreign.ID)))
	s.ExpectBody(404, issueNotFound, "GET", issuePath(pid, 99, ""), dev.token, nil)
	s.ExpectBody(404, issueNotFound, "GET", issuesPath(pid)+"/abc", dev.token, nil)
	if list, _ := s.list(dev.token, issuesPath(pid)); len(list) != 2 {
		t.Errorf("refused creates stored issues: %v", iids(list))
	}
}

// TestCreateFiltersAdminFields: a guest's assignee, milestone, labels,
// confidential flag and due date are dropped, not refused; an assignee who
// may not read the issue is dropped for everyone.
func TestCreateFiltersAdminFields(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("filters", "private")
	gst, dev, outsider := s.person("gst"), s.person("dev"), s.person("outsider")
	s.member(pid, gst, guest)
	s.member(pid, dev, developer)
	var ms milestoneJSON
	s.JSON(t, "POST", fmt.Sprintf("/projects/%d/milestones", pid), dev.token, form("title", "v1"), 201, &ms)

	is := s.create(gst.token, pid, "From a guest", "assignee_id", fmt.Sprint(dev.id), "milestone_id", fmt.Sprint(ms.ID),
		"labels", "x", "confidential", "true", "due_date", "2017-01-01")
	if is.Assignee != nil || is.Milestone != nil || len(is.Labels) != 0 || is.Confidential || is.DueDate != nil {
		t.Fatalf("guest's admin fields kept: %s", is.Raw)
	}
	// Even an unknown milestone is dropped for a guest rather than refused.
	s.create(gst.token, pid, "Unknown milestone", "milestone_id", "999")

	if got := s.create(dev.token, pid, "To an outsider", "assignee_id", fmt.Sprint(outsider.id)); got.Assignee != nil {
		t.Errorf("assignee who cannot read the project kept: %s", got.Raw)
	}
	if got := s.create(dev.token, pid, "Nobody", "assignee_id", "424242"); got.Assignee != nil {
		t.Errorf("unknown assignee kept: %s", got.Raw)
	}
	if got := s.create(dev.token, pid, "Via assignee_ids", "assignee_ids[]", fmt.Sprint(gst.id)); got.Assignee == nil || got.Assignee.ID != gst.id {
		t.Errorf("assignee_ids: %s", got.Raw)
	}
}

// TestUpdate: every field, the at-least-one rule, and what a guest
// author may change.
func TestUpdate(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("updates", "private")
	dev, gst, gst2 := s.person("dev"), s.person("gst"), s.person("gst2")
	s.member(pid, dev, developer)
	s.member(pid, gst, guest)
	s.member(pid, gst2, guest)
	var ms milestoneJSON
	s.JSON(t, "POST", fmt.Sprintf("/projects/%d/milestones", pid), dev.token, form("title", "v1"), 201, &ms)
	s.create(gst.token, pid, "Guest's issue")
	s.Advance(time.Minute)

	got := s.update(dev.token, pid, 1, "title", "Renamed", "description", "Details", "assignee_id", fmt.Sprint(gst2.id),
		"milestone_id", fmt.Sprint(ms.ID), "labels", "p1,p2", "confidential", "true", "due_date", "2017-06-05")
	if got.Title != "Renamed" || got.Description != "Details" || got.Assignee == nil || got.Assignee.ID != gst2.id ||
		got.Milestone == nil || join(got.Labels) != "p1,p2" || !got.Confidential || str(got.DueDate) != "2017-06-05" {
		t.Fatalf("update: %s", got.Raw)
	}
	if got.UpdatedAt <= got.CreatedAt {
		t.Errorf("updated_at %s not after created_at %s", got.UpdatedAt, got.CreatedAt)
	}
	cleared := s.update(dev.token, pid, 1, "assignee_id", "0", "milestone_id", "0", "labels", "", "due_date", "", "confidential", "false")
	if cleared.Assignee != nil || len(cleared.Assignees) != 0 || cleared.Milestone != nil || len(cleared.Labels) != 0 ||
		cleared.DueDate != nil || cleared.Confidential {
		t.Fatalf("clear: %s", cleared.Raw)
	}

	// The guest author edits the text; the admin fields are dropped.
	mine := s.update(gst.token, pid, 1, "title", "Guest title", "labels", "sneaky", "assignee_id", fmt.Sprint(gst.id))
	if mine.Title != "Guest title" || len(mine.Labels) != 0 || mine.Assignee != nil {
		t.Fatalf("guest author update: %s", mine.Raw)
	}
	s.ExpectBody(403, forbidden, "PUT", issuePath(pid, 1, ""), gst2.token, form("title", "Not mine"))
	s.ExpectBody(400, `{"error":"title, description, assignee_ids, assignee_id, milestone_id, labels, due_date, confidential, state_event are missing, at least one parameter must be provided"}`,
		"PUT", issuePath(pid, 1, ""), dev.token, form("foo", "bar"))
	s.ExpectBody(400, `{"error":"state_event does not have a valid value"}`, "PUT", issuePath(pid, 1, ""), dev.token, form("state_event", "merge"))
	s.ExpectBody(400, `{"message":{"title":["can't be blank"]}}`, "PUT", issuePath(pid, 1, ""), dev.token, form("title", " "))
	s.ExpectBody(404, milestoneMissing, "PUT", issuePath(pid, 1, ""), dev.token, form("milestone_id", "999"))
	s.ExpectBody(404, issueNotFound, "PUT", issuePath(pid, 7, ""), dev.token, form("title", "x"))
	if got := s.get(dev.token, pid, 1); got.Title != "Guest title" {
		t.Errorf("refused updates changed the issue: %s", got.Raw)
	}
}

// TestDelete: owners and administrators only; the issue's notes, todos
// and subscriptions go with it.
func TestDelete(t *testing.T) {
	t.Parallel()
	var subs ports.SubscriptionStore
	s := newServer(t, apptest.With(fx.Populate(&subs)))
	pid := s.project("deletes", "private")
	dev, mst := s.person("dev"), s.person("mst")
	s.member(pid, dev, developer)
	s.member(pid, mst, master)
	is := s.create(dev.token, pid, "Doomed", "assignee_id", fmt.Sprint(mst.id))
	s.update(dev.token, pid, 1, "title", "Doomed indeed")
	s.issueCall(201, "POST", issuePath(pid, 1, "/unsubscribe"), mst.token, nil) // an explicit choice, stored

	s.ExpectBody(401, unauthorized, "DELETE", issuePath(pid, 1, ""), "", nil)
	s.ExpectBody(403, forbidden, "DELETE", issuePath(pid, 1, ""), dev.token, nil)
	s.ExpectBody(403, forbidden, "DELETE", issuePath(pid, 1, ""), mst.token, nil)
	s.Expect(204, "DELETE", issuePath(pid, 1, ""), s.RootToken, nil)
	s.ExpectBody(404, issueNotFound, "GET", issuePath(pid, 1, ""), dev.token, nil)
	s.ExpectBody(404, issueNotFound, "DELETE", issuePath(pid, 1, ""), s.RootToken, nil)

	if notes := s.systemNotes(is.ID); len(notes) != 0 {
		t.Errorf("notes left: %v", notes)
	}
	var todos []any
	s.JSON(t, "GET", "/todos", mst.token, nil, 200, &todos)
	if len(todos) != 0 {
		t.Errorf("todos left: %v", todos)
	}
	if c, err := subs.Get(context.Background(), domain.Subject{Type: domain.TargetIssue, ID: is.ID}, mst.id); err != nil || c != nil {
		t.Errorf("subscription left: %v %v", c, err)
	}
	// IIDs are never reused.
	if again := s.create(dev.token, pid, "Next"); again.IID != 2 {
		t.Errorf("iid after delete: %d", again.IID)
	}
}
