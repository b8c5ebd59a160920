package mergerequests_test

import (
	"fmt"
	"testing"
)

// todoJSON is the todo entity as the tests read it.
type todoJSON struct {
	ID      int64 `json:"id"`
	Project *struct {
		ID                int64  `json:"id"`
		PathWithNamespace string `json:"path_with_namespace"`
	} `json:"project"`
	Author     *userJSON `json:"author"`
	ActionName string    `json:"action_name"`
	TargetType string    `json:"target_type"`
	Target     *mrJSON   `json:"target"`
	State      string    `json:"state"`
}

// TestSubscriptions: author and assignee start subscribed, others not;
// subscribe and unsubscribe toggle, and repeats are 304 with no body.
func TestSubscriptions(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.seed("subs", "private")
	dev, dev2, rep, gst, outsider := s.person("dev"), s.person("dev2"), s.person("rep"), s.person("gst"), s.person("outsider")
	s.member(r.id, dev, developer)
	s.member(r.id, dev2, developer)
	s.member(r.id, rep, reporter)
	s.member(r.id, gst, guest)
	if m := s.create(dev.token, r.id, "feature", "master", "Subscribe", "assignee_id", fmt.Sprint(dev2.id)); !m.Subscribed {
		t.Fatalf("author not subscribed in the create response")
	}
	for _, c := range []struct {
		who  person
		want bool
	}{{dev, true}, {dev2, true}, {rep, false}} {
		if got := s.get(c.who.token, r.id, 1); got.Subscribed != c.want {
			t.Errorf("subscribed for %s: %v, want %v", c.who.name, got.Subscribed, c.want)
		}
	}
	sub, unsub := mrPath(r.id, 1, "/subscribe"), mrPath(r.id, 1, "/unsubscribe")

	// The author is already subscribed.
	s.expectEmpty(304, "POST", sub, dev.token, nil)
	if m := s.mrCall(201, "POST", unsub, dev.token, nil); m.Subscribed || m.IID != 1 {
		t.Fatalf("author unsubscribe: %+v", m)
	}
	s.expectEmpty(304, "POST", unsub, dev.token, nil)
	if got := s.get(dev.token, r.id, 1); got.Subscribed {
		t.Fatal("author still subscribed after unsubscribe")
	}

	// A reporter subscribes; the choice is theirs only.
	s.expectEmpty(304, "POST", unsub, rep.token, nil)
	if m := s.mrCall(201, "POST", sub, rep.token, nil); !m.Subscribed {
		t.Fatalf("reporter subscribe: %+v", m)
	}
	s.expectEmpty(304, "POST", sub, rep.token, nil)
	if !s.get(rep.token, r.id, 1).Subscribed || s.get(dev.token, r.id, 1).Subscribed {
		t.Fatal("subscriptions leak between users")
	}
	if m := s.mrCall(201, "POST", sub, dev.token, nil); !m.Subscribed {
		t.Fatalf("author resubscribe: %+v", m)
	}

	s.ExpectBody(401, unauthorized, "POST", sub, "", nil)
	s.ExpectBody(401, unauthorized, "POST", unsub, "", nil)
	for _, who := range []person{outsider, gst} {
		s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", sub, who.token, nil)
		s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", unsub, who.token, nil)
	}
	s.ExpectBody(404, `{"message":"404 Merge Request Not Found"}`, "POST", mrPath(r.id, 9, "/subscribe"), rep.token, nil)
}

// TestTodos: POST .../todo creates a "marked" todo once (then 304), and the
// assignee of a new merge request gets an "assigned" todo in GET /todos.
func TestTodos(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.seed("todos", "private")
	dev, dev2, rep, outsider := s.person("dev"), s.person("dev2"), s.person("rep"), s.person("outsider")
	s.member(r.id, dev, developer)
	s.member(r.id, dev2, developer)
	s.member(r.id, rep, reporter)
	s.create(dev.token, r.id, "feature", "master", "Assigned to dev2", "assignee_id", fmt.Sprint(dev2.id))
	s.branch(r, "self")
	s.create(dev.token, r.id, "self", "master", "Assigned to myself", "assignee_id", fmt.Sprint(dev.id))
	todo := mrPath(r.id, 1, "/todo")

	var td todoJSON
	decode(t, s.Expect(201, "POST", todo, rep.token, nil).Body, &td)
	if td.ActionName != "marked" || td.TargetType != "MergeRequest" || td.Target == nil || td.Target.IID != 1 ||
		td.Project == nil || td.Project.ID != r.id || td.Project.PathWithNamespace != "root/todos" || td.Author == nil || td.Author.ID != rep.id {
		t.Fatalf("todo: %+v", td)
	}
	s.expectEmpty(304, "POST", todo, rep.token, nil)
	s.ExpectBody(401, unauthorized, "POST", todo, "", nil)
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", todo, outsider.token, nil)

	resp, data := s.Do(t, "GET", "/todos", dev2.token, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /todos (modules/todos): %d %s", resp.StatusCode, data)
	}
	var todos []todoJSON
	decode(t, data, &todos)
	if len(todos) != 1 || todos[0].ActionName != "assigned" || todos[0].TargetType != "MergeRequest" ||
		todos[0].Target == nil || todos[0].Target.IID != 1 || todos[0].Author == nil || todos[0].Author.ID != dev.id {
		t.Fatalf("assignee's todos: %s", data)
	}
	// The author assigning themselves gets no todo.
	var mine []todoJSON
	s.JSON(t, "GET", "/todos", dev.token, nil, 200, &mine)
	if len(mine) != 0 {
		t.Fatalf("self-assignment made todos: %+v", mine)
	}
	var reps []todoJSON
	s.JSON(t, "GET", "/todos", rep.token, nil, 200, &reps)
	if len(reps) != 1 || reps[0].ActionName != "marked" || reps[0].ID != td.ID {
		t.Fatalf("reporter's todos: %+v", reps)
	}
}
