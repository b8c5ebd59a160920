package notes_test

import (
	"fmt"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// awardsPath is the award emoji collection of a noteable
// ("issues", 3), or of one of its notes when note is given.
func awardsPath(projectID int64, segment string, key int64, note ...int64) string {
	if len(note) > 0 {
		return notePath(projectID, segment, key, note[0]) + "/award_emoji"
	}
	return fmt.Sprintf("/projects/%d/%s/%d/award_emoji", projectID, segment, key)
}

// award gives an emoji through the API expecting 201.
func (s *server) award(token, path, name string) awardJSON {
	s.T.Helper()
	var a awardJSON
	s.Expect(201, "POST", path, token, apptest.Form("name", name)).Decode(s.T, &a)
	return a
}

// TestAwardEmojiOnIssues: the award emoji API on an issue: the entity,
// aliases, votes counted on the issue, pages, GitLab's 404s for refused
// awards, and who may take an award back.
func TestAwardEmojiOnIssues(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("awards", "public")
	alice, bob, carol := s.person("alice"), s.person("bob"), s.person("carol")
	is := s.issue(pid, alice.id, "Vote here", false)
	other := s.issue(pid, alice.id, "Elsewhere", false)
	path := awardsPath(pid, "issues", is.IID)

	data := s.Expect(201, "POST", path, bob.token, apptest.Form("name", "+1")).Body
	wantKeys := []string{"awardable_id", "awardable_type", "created_at", "id", "name", "updated_at", "user"}
	if got := keys(t, data); fmt.Sprint(got) != fmt.Sprint(wantKeys) {
		t.Errorf("award keys = %v, want %v", got, wantKeys)
	}
	var up awardJSON
	apptest.Reply{Body: data}.Decode(t, &up)
	if up.Name != "thumbsup" || up.AwardableType != "Issue" || up.AwardableID != is.ID || up.User == nil ||
		up.User.Username != "bob" || up.CreatedAt == "" || up.UpdatedAt != up.CreatedAt {
		t.Errorf("award = %+v", up)
	}
	down := s.award(carol.token, path, "thumbsdown")
	tada := s.award(alice.token, path, "tada") // the author may award anything but votes
	if u, d, _ := s.issueCounts(alice.token, is); u != 1 || d != 1 {
		t.Errorf("issue votes = %d/%d, want 1/1", u, d)
	}

	// Refusals are GitLab's 404s of the award.
	s.ExpectBody(404, `{"message":"404 Award Emoji {:name=>[\"has already been taken\"]} Not Found"}`,
		"POST", path, bob.token, apptest.Form("name", "thumbsup"))
	s.ExpectBody(404, `{"message":"404 Award Emoji {:name=>[\"is not included in the list\"]} Not Found"}`,
		"POST", path, bob.token, apptest.Form("name", "notanemoji"))
	s.ExpectBody(404, `{"message":"404 Award Emoji Not Found"}`, "POST", path, alice.token, apptest.Form("name", "thumbsup"))
	s.ExpectBody(400, `{"error":"name is missing"}`, "POST", path, bob.token, nil)
	s.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", path, "", apptest.Form("name", "tada"))

	// Lists are oldest first, paginated, and for signed-in users only.
	var list []awardJSON
	r := s.Expect(200, "GET", path+"?per_page=2&page=2", carol.token, nil)
	r.Decode(t, &list)
	if len(list) != 1 || list[0].ID != tada.ID || r.Header.Get("X-Total") != "3" || r.Header.Get("X-Total-Pages") != "2" {
		t.Errorf("page 2 = %+v, X-Total %q", list, r.Header.Get("X-Total"))
	}
	s.Expect(200, "GET", path, carol.token, nil).Decode(t, &list)
	if len(list) != 3 || list[0].ID != up.ID || list[1].ID != down.ID || list[2].ID != tada.ID {
		t.Errorf("list = %+v", list)
	}
	s.ExpectBody(401, `{"message":"401 Unauthorized"}`, "GET", path, "", nil)

	var one awardJSON
	s.Expect(200, "GET", fmt.Sprintf("%s/%d", path, down.ID), alice.token, nil).Decode(t, &one)
	if one.ID != down.ID || one.Name != down.Name || one.User == nil || one.User.ID != carol.id || one.CreatedAt != down.CreatedAt {
		t.Errorf("single award = %+v, want %+v", one, down)
	}
	for _, p := range []string{
		fmt.Sprintf("%s/%d", path, 99999),
		fmt.Sprintf("%s/x", path),
		fmt.Sprintf("%s/%d", awardsPath(pid, "issues", other.IID), down.ID), // another issue's path
	} {
		s.ExpectBody(404, `{"message":"404 Award Emoji Not Found"}`, "GET", p, alice.token, nil)
		s.ExpectBody(404, `{"message":"404 Award Emoji Not Found"}`, "DELETE", p, carol.token, nil)
	}
	s.ExpectBody(404, `{"message":"404 Issue Not Found"}`, "GET", awardsPath(pid, "issues", 999), alice.token, nil)

	// Names are GitLab's emoji index, aliases stored under their name.
	otherPath := awardsPath(pid, "issues", other.IID)
	for name, want := range map[string]string{"satisfied": "laughing", "flag_us": "flag_us", "thumbsup_tone3": "thumbsup_tone3", "e-mail": "e-mail"} {
		if got := s.award(bob.token, otherPath, name); got.Name != want {
			t.Errorf("award %q stored as %q, want %q", name, got.Name, want)
		}
	}
	s.Expect(404, "POST", otherPath, bob.token, apptest.Form("name", "shipit"))

	// Only the awarder and administrators take an award back.
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", fmt.Sprintf("%s/%d", path, down.ID), bob.token, nil)
	s.Expect(204, "DELETE", fmt.Sprintf("%s/%d", path, down.ID), carol.token, nil)
	s.Expect(204, "DELETE", fmt.Sprintf("%s/%d", path, up.ID), s.RootToken, nil)
	if u, d, _ := s.issueCounts(alice.token, is); u != 0 || d != 0 {
		t.Errorf("issue votes after the deletes = %d/%d, want 0/0", u, d)
	}
	s.award(bob.token, path, "thumbsup") // the name is free again
}

// TestAwardEmojiOnNotes: awards on a merge request's notes are the
// note's (awardable_type "Note"), apart from the merge request's own, and
// the note's author may not vote on it; system notes take none.
func TestAwardEmojiOnNotes(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("noted", "public")
	_, iid := s.mr(pid, "feature", "Review me")
	alice, bob := s.person("alice"), s.person("bob")
	n := s.post(alice.token, notesPath(pid, "merge_requests", iid), "Looks good")
	path := awardsPath(pid, "merge_requests", iid, n.ID)

	a := s.award(bob.token, path, "thumbsup")
	if a.AwardableType != "Note" || a.AwardableID != n.ID || a.User == nil || a.User.Username != "bob" {
		t.Errorf("note award = %+v", a)
	}
	s.ExpectBody(404, `{"message":"404 Award Emoji Not Found"}`, "POST", path, alice.token, apptest.Form("name", "thumbsdown"))
	s.award(alice.token, path, "heart")
	var list []awardJSON
	s.Expect(200, "GET", path, alice.token, nil).Decode(t, &list)
	if len(list) != 2 || list[0].ID != a.ID {
		t.Errorf("note awards = %+v", list)
	}
	if m := s.mrRead(alice.token, pid, iid); m.Upvotes != 0 {
		t.Errorf("a note's upvote counted on the merge request: %+v", m)
	}
	s.Expect(200, "GET", awardsPath(pid, "merge_requests", iid), alice.token, nil).Decode(t, &list)
	if len(list) != 0 {
		t.Errorf("merge request awards = %+v, want none", list)
	}
	s.ExpectBody(404, `{"message":"404 Award Emoji Not Found"}`, "GET", fmt.Sprintf("%s/%d", awardsPath(pid, "merge_requests", iid), a.ID), alice.token, nil)
	s.ExpectBody(404, `{"message":"404 Note Not Found"}`, "GET", awardsPath(pid, "merge_requests", iid, 99999), alice.token, nil)

	// A note of another noteable is not this one's.
	is := s.issue(pid, alice.id, "Other", false)
	s.ExpectBody(404, `{"message":"404 Note Not Found"}`, "GET", awardsPath(pid, "issues", is.IID, n.ID), alice.token, nil)

	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", fmt.Sprintf("%s/%d", path, a.ID), alice.token, nil)
	s.Expect(204, "DELETE", fmt.Sprintf("%s/%d", path, a.ID), bob.token, nil)
	s.Expect(200, "GET", path, alice.token, nil).Decode(t, &list)
	if len(list) != 1 || list[0].Name != "heart" {
		t.Errorf("note awards after the delete = %+v", list)
	}

	// Closing leaves a system note, which takes no awards.
	s.Expect(200, "PUT", fmt.Sprintf("/projects/%d/merge_requests/%d", pid, iid), s.RootToken, apptest.Form("state_event", "close"))
	notes, _ := s.list(alice.token, notesPath(pid, "merge_requests", iid))
	if len(notes) == 0 || !notes[0].System {
		t.Fatalf("notes = %+v, want the system note first", notes)
	}
	s.ExpectBody(404, `{"message":"404 Award Emoji Not Found"}`, "POST", awardsPath(pid, "merge_requests", iid, notes[0].ID),
		bob.token, apptest.Form("name", "tada"))
}

// TestAwardEmojiPermissions: a confidential issue and a private snippet
// hide their awards and refuse new ones with their 404; archived projects
// take no awards; snippets are awardables of their own type.
func TestAwardEmojiPermissions(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("guarded", "public")
	author, reporter, stranger := s.person("author"), s.person("reporter"), s.person("stranger")
	s.member(pid, reporter, domain.Reporter)

	conf := s.issue(pid, author.id, "Secret", true)
	confPath := awardsPath(pid, "issues", conf.IID)
	a := s.award(reporter.token, confPath, "eyes")
	for _, req := range []struct{ method, path string }{
		{"GET", confPath}, {"POST", confPath},
		{"GET", fmt.Sprintf("%s/%d", confPath, a.ID)}, {"DELETE", fmt.Sprintf("%s/%d", confPath, a.ID)},
	} {
		s.ExpectBody(404, `{"message":"404 Issue Not Found"}`, req.method, req.path, stranger.token, apptest.Form("name", "tada"))
	}

	priv := s.snippet(pid, author.id, "Private", domain.Private)
	privPath := awardsPath(pid, "snippets", priv.ID)
	s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "GET", privPath, stranger.token, nil)
	s.ExpectBody(404, `{"message":"404 Snippet Not Found"}`, "POST", privPath, stranger.token, apptest.Form("name", "tada"))
	sa := s.award(reporter.token, privPath, "thumbsup")
	if sa.AwardableType != "Snippet" || sa.AwardableID != priv.ID {
		t.Errorf("snippet award = %+v", sa)
	}
	// The snippet's author may not vote on it.
	s.ExpectBody(404, `{"message":"404 Award Emoji Not Found"}`, "POST", privPath, author.token, apptest.Form("name", "thumbsdown"))

	pub := s.snippet(pid, author.id, "Public", domain.Public)
	sn := s.post(author.token, notesPath(pid, "snippets", pub.ID), "On a snippet")
	na := s.award(stranger.token, awardsPath(pid, "snippets", pub.ID, sn.ID), "+1")
	if na.AwardableType != "Note" || na.Name != "thumbsup" {
		t.Errorf("snippet note award = %+v", na)
	}

	open := s.issue(pid, author.id, "Open", false)
	s.Expect(201, "POST", fmt.Sprintf("/projects/%d/archive", pid), s.RootToken, nil)
	s.ExpectBody(404, `{"message":"404 Award Emoji Not Found"}`, "POST", awardsPath(pid, "issues", open.IID), stranger.token,
		apptest.Form("name", "tada"))
	s.Expect(200, "GET", awardsPath(pid, "issues", open.IID), stranger.token, nil)
}
