package notes_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// TestMergeRequestNotes walks a merge request's discussion: create, read,
// list with the system notes, edit and delete by the right people, and
// the counts and times the merge request shows.
func TestMergeRequestNotes(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("notes", "private")
	dev, other, boss := s.person("dev"), s.person("other"), s.person("boss")
	s.member(pid, dev, domain.Developer)
	s.member(pid, other, domain.Developer)
	s.member(pid, boss, domain.Master)
	mrID, iid := s.mr(pid, "feature", "Add feature")
	other2ID, other2 := s.mr(pid, "second", "Second")
	path := notesPath(pid, "merge_requests", iid)
	before := s.mrRead(dev.token, pid, iid)

	s.Advance(time.Minute)
	n := s.post(dev.token, path, "Looks good\n\nwith details")
	if n.Body != "Looks good\n\nwith details" || n.System || n.NoteableType != "MergeRequest" || n.NoteableID != mrID ||
		n.NoteableIID == nil || *n.NoteableIID != iid || n.Author == nil || n.Author.Username != "dev" ||
		string(n.Attachment) != "null" || n.CreatedAt != n.UpdatedAt || !strings.HasSuffix(n.CreatedAt, "Z") {
		t.Errorf("created note = %+v", n)
	}
	data := s.Expect(200, "GET", notePath(pid, "merge_requests", iid, n.ID), other.token, nil).Body
	if !strings.Contains(string(data), `"body":"Looks good\n\nwith details"`) {
		t.Errorf("GET note = %s", data)
	}
	wantKeys := []string{"attachment", "author", "body", "created_at", "id", "noteable_id", "noteable_iid", "noteable_type", "system", "updated_at"}
	if got := keys(t, data); !slices.Equal(got, wantKeys) {
		t.Errorf("note keys = %v, want %v", got, wantKeys)
	}
	after := s.mrRead(dev.token, pid, iid)
	if after.UserNotesCount != 1 || after.UpdatedAt <= before.UpdatedAt {
		t.Errorf("merge request after a note: %+v (before %+v); want 1 user note and updated_at moved", after, before)
	}

	// A state change leaves a system note: listed, but not counted.
	s.Expect(200, "PUT", fmt.Sprintf("/projects/%d/merge_requests/%d", pid, iid), dev.token, apptest.Form("state_event", "close"))
	list, resp := s.list(dev.token, path)
	if len(list) != 2 || !list[0].System || list[0].Body != "closed" || list[1].ID != n.ID || list[1].System {
		t.Fatalf("list = %+v, want the system note then the comment (newest first)", list)
	}
	if resp.Header.Get("X-Total") != "2" {
		t.Errorf("X-Total = %q", resp.Header.Get("X-Total"))
	}
	if got := s.mrRead(dev.token, pid, iid).UserNotesCount; got != 1 {
		t.Errorf("user_notes_count = %d, want 1 (system notes do not count)", got)
	}

	// Edits: the author and masters; other developers are refused.
	one := notePath(pid, "merge_requests", iid, n.ID)
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "PUT", one, other.token, apptest.Form("body", "hijacked"))
	s.ExpectBody(400, `{"error":"body is missing"}`, "PUT", one, dev.token, apptest.Form("body", " "))
	s.Advance(time.Minute)
	var edited noteJSON
	s.Expect(200, "PUT", one, dev.token, apptest.Form("body", "Edited")).Decode(t, &edited)
	if edited.Body != "Edited" || edited.ID != n.ID || edited.CreatedAt != n.CreatedAt || edited.UpdatedAt <= n.UpdatedAt {
		t.Errorf("edited = %+v (was %+v)", edited, n)
	}
	s.Expect(200, "PUT", one, boss.token, apptest.Form("body", "Moderated")).Decode(t, &edited)
	if edited.Body != "Moderated" || edited.Author.Username != "dev" {
		t.Errorf("edited by a master = %+v, want the body changed and dev still the author", edited)
	}

	// A note is only reachable through its own merge request.
	s.ExpectBody(404, `{"message":"404 Note Not Found"}`, "GET", notePath(pid, "merge_requests", other2, n.ID), dev.token, nil)
	s.ExpectBody(404, `{"message":"404 Note Not Found"}`, "PUT", notePath(pid, "merge_requests", other2, n.ID), dev.token, apptest.Form("body", "x"))
	s.ExpectBody(404, `{"message":"404 Note Not Found"}`, "GET", notePath(pid, "merge_requests", iid, n.ID+1000), dev.token, nil)
	s.ExpectBody(404, `{"message":"404 Note Not Found"}`, "GET", notesPath(pid, "merge_requests", iid)+"/abc", dev.token, nil)
	if other2ID == mrID {
		t.Fatal("two merge requests share an ID")
	}

	// Deletion: others refused, the author answered 204, then it is gone.
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", one, other.token, nil)
	if del := s.Send("DELETE", one, dev.token, nil); del.Status != 204 || len(del.Body) != 0 {
		t.Fatalf("DELETE: %d %s, want 204 without a body", del.Status, del.Body)
	}
	s.ExpectBody(404, `{"message":"404 Note Not Found"}`, "GET", one, dev.token, nil)
	s.ExpectBody(404, `{"message":"404 Note Not Found"}`, "DELETE", one, dev.token, nil)
	if got := s.mrRead(dev.token, pid, iid).UserNotesCount; got != 0 {
		t.Errorf("user_notes_count after delete = %d", got)
	}
	// Masters delete others' notes.
	m := s.post(other.token, path, "to be moderated")
	s.Expect(204, "DELETE", notePath(pid, "merge_requests", iid, m.ID), boss.token, nil)
}

// TestMergeRequestNotePermissions: hidden is 404 (project, merge request),
// anonymous writes 401, archived projects and disabled features refuse.
func TestMergeRequestNotePermissions(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	priv := s.project("private-one", "private")
	pub := s.project("public-one", "public")
	g, stranger := s.person("guesty"), s.person("stranger")
	s.member(priv, g, domain.Guest)
	_, privIID := s.mr(priv, "feature", "Private work")
	_, pubIID := s.mr(pub, "feature", "Public work")
	privPath, pubPath := notesPath(priv, "merge_requests", privIID), notesPath(pub, "merge_requests", pubIID)
	root := s.post(s.RootToken, privPath, "by root")

	const noProject = `{"message":"404 Project Not Found"}`
	const noMR = `{"message":"404 Merge Request Not Found"}`
	s.ExpectBody(404, noProject, "GET", privPath, "", nil)
	s.ExpectBody(404, noProject, "GET", privPath, stranger.token, nil)
	s.ExpectBody(404, noProject, "GET", notePath(priv, "merge_requests", privIID, root.ID), stranger.token, nil)
	// Guests of a private project may not read its merge requests.
	s.ExpectBody(404, noMR, "GET", privPath, g.token, nil)
	s.ExpectBody(404, noMR, "POST", privPath, g.token, apptest.Form("body", "hi"))
	s.ExpectBody(404, noMR, "GET", notePath(priv, "merge_requests", privIID, root.ID), g.token, nil)
	s.ExpectBody(404, noMR, "GET", notesPath(priv, "merge_requests", 999), s.RootToken, nil)
	s.ExpectBody(404, noMR, "GET", fmt.Sprintf("/projects/%d/merge_requests/abc/notes", priv), s.RootToken, nil)
	// Anonymous writes: 401 before anything is revealed.
	s.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", privPath, "", apptest.Form("body", "hi"))
	s.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", notesPath(99999, "merge_requests", 1), "", apptest.Form("body", "hi"))
	s.ExpectBody(401, `{"message":"401 Unauthorized"}`, "PUT", notePath(priv, "merge_requests", privIID, root.ID), "", apptest.Form("body", "x"))
	s.ExpectBody(401, `{"message":"401 Unauthorized"}`, "DELETE", notePath(priv, "merge_requests", privIID, root.ID), "", nil)
	s.ExpectBody(400, `{"error":"body is missing"}`, "POST", pubPath, stranger.token, nil)

	// Public project: anyone reads, any signed-in user comments.
	s.list("", pubPath)
	n := s.post(stranger.token, pubPath, "drive-by comment")
	rootPub := s.post(s.RootToken, pubPath, "by root")
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "PUT", notePath(pub, "merge_requests", pubIID, rootPub.ID), stranger.token, apptest.Form("body", "x"))
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", notePath(pub, "merge_requests", pubIID, rootPub.ID), stranger.token, nil)
	s.Expect(200, "PUT", notePath(pub, "merge_requests", pubIID, n.ID), stranger.token, apptest.Form("body", "fixed typo"))

	// Archived: no new notes, no edits.
	s.Expect(201, "POST", fmt.Sprintf("/projects/%d/archive", pub), s.RootToken, nil)
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", pubPath, stranger.token, apptest.Form("body", "late"))
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "PUT", notePath(pub, "merge_requests", pubIID, n.ID), stranger.token, apptest.Form("body", "late"))
	s.list(stranger.token, pubPath)

	// Merge requests turned off: the project's 404 on every route.
	s.Expect(200, "PUT", fmt.Sprintf("/projects/%d", priv), s.RootToken, apptest.Form("merge_requests_enabled", "false"))
	s.ExpectBody(404, noProject, "GET", privPath, s.RootToken, nil)
	s.ExpectBody(404, noProject, "GET", notePath(priv, "merge_requests", privIID, root.ID), s.RootToken, nil)
	s.ExpectBody(404, noProject, "POST", privPath, s.RootToken, apptest.Form("body", "x"))
}

// TestNotesOrderAndPages: newest first by default, sort and order_by,
// pagination headers, bad values refused.
func TestNotesOrderAndPages(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("paged", "public")
	_, iid := s.mr(pid, "feature", "Paged")
	path := notesPath(pid, "merge_requests", iid)
	var made []int64
	for i := range 5 {
		s.Advance(time.Minute)
		made = append(made, s.post(s.RootToken, path, fmt.Sprint("note ", i)).ID)
	}
	rev := slices.Clone(made)
	slices.Reverse(rev)
	list, _ := s.list("", path)
	if !slices.Equal(ids(list), rev) {
		t.Errorf("default order %v, want newest first %v", ids(list), rev)
	}
	if list, _ = s.list("", path+"?sort=asc"); !slices.Equal(ids(list), made) {
		t.Errorf("sort=asc %v, want %v", ids(list), made)
	}
	// Editing the oldest makes it the most recently updated.
	s.Advance(time.Minute)
	s.Expect(200, "PUT", notePath(pid, "merge_requests", iid, made[0]), s.RootToken, apptest.Form("body", "edited"))
	list, _ = s.list("", path+"?order_by=updated_at")
	if want := append([]int64{made[0]}, rev[:4]...); !slices.Equal(ids(list), want) {
		t.Errorf("order_by=updated_at %v, want %v", ids(list), want)
	}
	if list, _ = s.list("", path+"?order_by=created_at&sort=desc"); !slices.Equal(ids(list), rev) {
		t.Errorf("order_by=created_at %v, want %v", ids(list), rev)
	}

	list, resp := s.list("", path+"?per_page=2&page=2")
	if !slices.Equal(ids(list), rev[2:4]) {
		t.Errorf("page 2 = %v, want %v", ids(list), rev[2:4])
	}
	for h, want := range map[string]string{"X-Total": "5", "X-Total-Pages": "3", "X-Page": "2", "X-Per-Page": "2",
		"X-Next-Page": "3", "X-Prev-Page": "1"} {
		if got := resp.Header.Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	if link := resp.Header.Get("Link"); !strings.Contains(link, `rel="next"`) || !strings.Contains(link, "page=3") {
		t.Errorf("Link = %q", link)
	}
	if list, _ = s.list("", path+"?per_page=2&page=4"); len(list) != 0 {
		t.Errorf("page past the end = %v", ids(list))
	}
	s.ExpectBody(400, `{"error":"sort does not have a valid value"}`, "GET", path+"?sort=up", "", nil)
	s.ExpectBody(400, `{"error":"order_by does not have a valid value"}`, "GET", path+"?order_by=title", "", nil)
}
