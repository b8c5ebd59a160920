package mergerequests_test

import (
	"fmt"
	"net/url"
	"testing"
)

const (
	unauthorized = `{"message":"401 Unauthorized"}`
	forbidden    = `{"message":"403 Forbidden"}`
)

// TestCreatePermissions: anonymous 401, outsider 404, reporter 403,
// archived project 403, developer 201.
func TestCreatePermissions(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.seed("create-perms", "private")
	dev, rep, outsider := s.person("dev"), s.person("rep"), s.person("outsider")
	s.member(r.id, dev, developer)
	s.member(r.id, rep, reporter)
	body := form("source_branch", "feature", "target_branch", "master", "title", "T")

	s.ExpectBody(401, unauthorized, "POST", mrsPath(r.id), "", body)
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", mrsPath(r.id), outsider.token, body)
	s.ExpectBody(403, forbidden, "POST", mrsPath(r.id), rep.token, body)
	if list, _ := s.list(dev.token, mrsPath(r.id)+"?state=all"); len(list) != 0 {
		t.Fatalf("refused creates stored %v", iids(list))
	}

	a := s.seed("archived", "private")
	s.member(a.id, dev, developer)
	s.JSON(t, "POST", fmt.Sprintf("/projects/%d/archive", a.id), s.RootToken, nil, 201, nil)
	data := s.Expect(403, "POST", mrsPath(a.id), dev.token, body).Body
	var e struct{ Message string }
	decode(t, data, &e)
	if len(e.Message) < 13 || e.Message[:13] != "403 Forbidden" {
		t.Fatalf("archived project: %s", data)
	}

	if m := s.create(dev.token, r.id, "feature", "master", "T"); m.Author.ID != dev.id {
		t.Fatalf("developer create: %+v", m)
	}
}

// TestUpdatePermissions: the author or a developer+ may update; a reporter
// may not; anonymous is 401.
func TestUpdatePermissions(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.seed("update-perms", "private")
	dev, dev2, rep := s.person("dev"), s.person("dev2"), s.person("rep")
	s.member(r.id, dev, developer)
	s.member(r.id, dev2, developer)
	s.member(r.id, rep, reporter)
	s.create(dev.token, r.id, "feature", "master", "Mine")
	path := mrPath(r.id, 1, "")

	s.ExpectBody(401, unauthorized, "PUT", path, "", form("title", "Anon"))
	s.ExpectBody(403, forbidden, "PUT", path, rep.token, form("title", "Reporter"))
	s.ExpectBody(403, forbidden, "PUT", path, rep.token, form("state_event", "close"))
	if got := s.get(dev.token, r.id, 1); got.Title != "Mine" || got.State != "opened" {
		t.Fatalf("refused updates changed it: %+v", got)
	}
	if m := s.mrCall(200, "PUT", path, dev2.token, form("title", "Other developer")); m.Title != "Other developer" {
		t.Fatalf("developer update: %+v", m)
	}
	if m := s.mrCall(200, "PUT", path, dev.token, form("title", "Author")); m.Title != "Author" {
		t.Fatalf("author update: %+v", m)
	}
}

// TestDeletePermissions: only owners and admins delete (204); developers
// (even the author) and masters get 403; anonymous 401.
func TestDeletePermissions(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.seed("delete-perms", "private")
	dev, mst := s.person("dev"), s.person("mst")
	s.member(r.id, dev, developer)
	s.member(r.id, mst, master)
	s.create(dev.token, r.id, "feature", "master", "Doomed")
	path := mrPath(r.id, 1, "")

	s.ExpectBody(401, unauthorized, "DELETE", path, "", nil)
	s.ExpectBody(403, forbidden, "DELETE", path, dev.token, nil)
	s.ExpectBody(403, forbidden, "DELETE", path, mst.token, nil)
	s.get(dev.token, r.id, 1)
	s.Expect(204, "DELETE", path, s.RootToken, nil)
	s.ExpectBody(404, `{"message":"404 Merge Request Not Found"}`, "GET", path, dev.token, nil)

	// The owner of a personal project.
	owner := s.person("owner")
	var p struct{ ID int64 }
	s.JSON(t, "POST", "/projects", owner.token, url.Values{"name": {"own"}}, 201, &p)
	own := seeded{id: p.ID, name: "own"}
	s.commit(own.id, "master", "", "README.md", "hello\n")
	s.branch(own, "topic")
	s.create(owner.token, own.id, "topic", "master", "Mine to delete")
	s.Expect(204, "DELETE", mrPath(own.id, 1, ""), owner.token, nil)
	s.ExpectBody(404, `{"message":"404 Merge Request Not Found"}`, "GET", mrPath(own.id, 1, ""), owner.token, nil)
}

// TestMergePermissions: merge and cancel need the right to push to the
// target branch; others get 401.
func TestMergePermissions(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.seed("merge-perms", "private")
	dev, rep, mst := s.person("dev"), s.person("rep"), s.person("mst")
	s.member(r.id, dev, developer)
	s.member(r.id, rep, reporter)
	s.member(r.id, mst, master)
	merge := func(iid int64) string { return mrPath(r.id, iid, "/merge") }
	cancel := func(iid int64) string { return mrPath(r.id, iid, "/cancel_merge_when_pipeline_succeeds") }

	s.create(dev.token, r.id, "feature", "master", "Feature")
	s.ExpectBody(401, unauthorized, "PUT", merge(1), "", nil)
	s.ExpectBody(401, unauthorized, "PUT", cancel(1), "", nil)
	s.ExpectBody(401, unauthorized, "PUT", merge(1), rep.token, nil)
	s.mrCall(200, "PUT", merge(1), dev.token, form("merge_when_pipeline_succeeds", "true"))
	s.ExpectBody(401, unauthorized, "PUT", cancel(1), rep.token, nil)
	if got := s.get(dev.token, r.id, 1); !got.MergeWhenPipelineSucceeds || got.State != "opened" {
		t.Fatalf("refused cancel changed it: %+v", got)
	}

	// A protected target: developers may not merge unless allowed to.
	s.protect(r.id, "master", false, false)
	s.ExpectBody(401, unauthorized, "PUT", cancel(1), dev.token, nil)
	s.ExpectBody(401, unauthorized, "PUT", merge(1), dev.token, nil)
	s.mrCall(200, "PUT", cancel(1), mst.token, nil)
	if m := s.mrCall(200, "PUT", merge(1), mst.token, nil); m.State != "merged" {
		t.Fatalf("master merge onto protected: %+v", m)
	}

	s.protect(r.id, "master", false, true)
	s.branch(r, "can-merge")
	s.create(dev.token, r.id, "can-merge", "master", "Developers can merge")
	if m := s.mrCall(200, "PUT", merge(2), dev.token, nil); m.State != "merged" {
		t.Fatalf("developers_can_merge: %+v", m)
	}
	s.protect(r.id, "master", true, false)
	s.branch(r, "can-push")
	s.create(dev.token, r.id, "can-push", "master", "Developers can push")
	if m := s.mrCall(200, "PUT", merge(3), dev.token, nil); m.State != "merged" {
		t.Fatalf("developers_can_push: %+v", m)
	}

	// On a public project any reader may read, but guests and outsiders may
	// not merge.
	pub := s.seed("public-merge", "public")
	gst, outsider := s.person("gst"), s.person("outsider")
	s.member(pub.id, gst, guest)
	s.member(pub.id, dev, developer)
	s.create(dev.token, pub.id, "feature", "master", "Public")
	for _, tok := range []string{gst.token, outsider.token} {
		s.ExpectBody(401, unauthorized, "PUT", mrPath(pub.id, 1, "/merge"), tok, nil)
		s.ExpectBody(401, unauthorized, "PUT", mrPath(pub.id, 1, "/cancel_merge_when_pipeline_succeeds"), tok, nil)
	}
	if got := s.get(dev.token, pub.id, 1); got.State != "opened" {
		t.Fatalf("refused merges changed it: %+v", got)
	}
}

// TestReadPermissions: reporters read private merge requests; any reader
// (anonymous included) reads public ones.
func TestReadPermissions(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.seed("read-perms", "private")
	dev, rep, outsider := s.person("dev"), s.person("rep"), s.person("outsider")
	s.member(r.id, dev, developer)
	s.member(r.id, rep, reporter)
	s.create(dev.token, r.id, "feature", "master", "Private")
	if list, _ := s.list(rep.token, mrsPath(r.id)); len(list) != 1 || list[0].Title != "Private" {
		t.Fatalf("reporter list: %+v", list)
	}
	if m := s.get(rep.token, r.id, 1); m.Title != "Private" {
		t.Fatalf("reporter get: %+v", m)
	}
	s.ExpectBody(200, `[]`, "GET", mrPath(r.id, 1, "/closes_issues"), rep.token, nil)

	pub := s.seed("read-public", "public")
	s.member(pub.id, dev, developer)
	s.create(dev.token, pub.id, "feature", "master", "Public")
	for _, tok := range []string{"", outsider.token} {
		if list, _ := s.list(tok, mrsPath(pub.id)); len(list) != 1 || list[0].Title != "Public" {
			t.Fatalf("public list as %q: %+v", tok, list)
		}
		if m := s.mrCall(200, "GET", mrPath(pub.id, 1, ""), tok, nil); m.Title != "Public" || m.Subscribed {
			t.Fatalf("public get as %q: %+v", tok, m)
		}
	}
}
