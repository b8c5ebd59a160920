package issues_test

import (
	"fmt"
	"testing"
)

// todoJSON is the todo entity as the tests read it.
type todoJSON struct {
	ID         int64      `json:"id"`
	ActionName string     `json:"action_name"`
	TargetType string     `json:"target_type"`
	TargetURL  string     `json:"target_url"`
	Target     *issueJSON `json:"target"`
	Body       string     `json:"body"`
	State      string     `json:"state"`
	Author     *userJSON  `json:"author"`
	Project    *struct {
		ID int64 `json:"id"`
	} `json:"project"`
}

// TestSubscriptions: author and assignee start subscribed; subscribe and
// unsubscribe toggle per user, repeats are 304 with no body.
func TestSubscriptions(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("subs", "private")
	dev, gst, rep := s.person("dev"), s.person("gst"), s.person("rep")
	s.member(pid, dev, developer)
	s.member(pid, gst, guest)
	s.member(pid, rep, reporter)
	s.create(dev.token, pid, "Watch me", "assignee_id", fmt.Sprint(gst.id))
	for _, c := range []struct {
		who  person
		want bool
	}{{dev, true}, {gst, true}, {rep, false}} {
		if got := s.get(c.who.token, pid, 1); got.Subscribed != c.want {
			t.Errorf("subscribed for %s: %v, want %v", c.who.name, got.Subscribed, c.want)
		}
	}
	sub, unsub := issuePath(pid, 1, "/subscribe"), issuePath(pid, 1, "/unsubscribe")
	s.expectEmpty(304, "POST", sub, dev.token, nil)
	if got := s.issueCall(201, "POST", unsub, dev.token, nil); got.Subscribed || got.IID != 1 {
		t.Fatalf("author unsubscribe: %s", got.Raw)
	}
	s.expectEmpty(304, "POST", unsub, dev.token, nil)
	s.expectEmpty(304, "POST", unsub, rep.token, nil)
	if got := s.issueCall(201, "POST", sub, rep.token, nil); !got.Subscribed {
		t.Fatalf("reporter subscribe: %s", got.Raw)
	}
	s.expectEmpty(304, "POST", sub, rep.token, nil)
	if !s.get(rep.token, pid, 1).Subscribed || s.get(dev.token, pid, 1).Subscribed || !s.get(gst.token, pid, 1).Subscribed {
		t.Error("subscriptions leak between users")
	}
	// Lists show each caller's own choice.
	if list, _ := s.list(rep.token, issuesPath(pid)); len(list) != 1 || !list[0].Subscribed {
		t.Errorf("list for the subscriber: %+v", list)
	}
	if list, _ := s.list(dev.token, issuesPath(pid)); len(list) != 1 || list[0].Subscribed {
		t.Errorf("list for the unsubscribed author: %+v", list)
	}
	s.ExpectBody(404, issueNotFound, "POST", issuePath(pid, 5, "/subscribe"), rep.token, nil)
}

// TestTodos: the assignee gets an "assigned" todo, POST .../todo marks
// one once (then 304), closing marks the closer's todos done, and
// GET /todos shows the issue as target.
func TestTodos(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("todos", "private")
	dev, rep := s.person("dev"), s.person("rep")
	s.member(pid, dev, developer)
	s.member(pid, rep, reporter)
	is := s.create(dev.token, pid, "Do it", "assignee_id", fmt.Sprint(rep.id), "description", "ping @dev")

	var marked todoJSON
	decode(t, s.Expect(201, "POST", issuePath(pid, 1, "/todo"), rep.token, nil).Body, &marked)
	if marked.ActionName != "marked" || marked.TargetType != "Issue" || marked.State != "pending" ||
		marked.Target == nil || marked.Target.ID != is.ID || marked.TargetURL != is.WebURL ||
		marked.Author == nil || marked.Author.ID != rep.id || marked.Project == nil || marked.Project.ID != pid {
		t.Fatalf("marked todo: %+v", marked)
	}
	s.expectEmpty(304, "POST", issuePath(pid, 1, "/todo"), rep.token, nil)

	var todos []todoJSON
	s.JSON(t, "GET", "/todos", rep.token, nil, 200, &todos)
	if len(todos) != 2 {
		t.Fatalf("reporter's todos: %+v", todos)
	}
	actions := map[string]bool{}
	for _, td := range todos {
		actions[td.ActionName] = true
		if td.TargetType != "Issue" || td.Target == nil || td.Target.IID != 1 || td.Target.Title != "Do it" ||
			td.TargetURL != s.URL+"/root/todos/issues/1" || td.Body != "Do it" {
			t.Errorf("todo %+v", td)
		}
	}
	if !actions["assigned"] || !actions["marked"] {
		t.Errorf("actions %v, want assigned and marked", actions)
	}
	// Authors do not get todos for mentioning themselves.
	s.JSON(t, "GET", "/todos", dev.token, nil, 200, &todos)
	if len(todos) != 0 {
		t.Errorf("author's todos: %+v", todos)
	}

	// Closing marks the closer's pending todos on the issue done.
	s.update(rep.token, pid, 1, "state_event", "close")
	s.JSON(t, "GET", "/todos", rep.token, nil, 200, &todos)
	if len(todos) != 0 {
		t.Errorf("todos pending after close: %+v", todos)
	}
	s.JSON(t, "GET", "/todos?state=done", rep.token, nil, 200, &todos)
	if len(todos) != 2 {
		t.Errorf("done todos: %+v", todos)
	}

	// Reassigning gives the new assignee a todo; a mention already there
	// before the edit gives none.
	s.update(rep.token, pid, 1, "assignee_id", fmt.Sprint(dev.id), "description", "now @rep and @dev")
	s.JSON(t, "GET", "/todos", dev.token, nil, 200, &todos)
	if len(todos) != 1 || todos[0].ActionName != "assigned" {
		t.Errorf("new assignee's todos: %+v", todos)
	}
}
