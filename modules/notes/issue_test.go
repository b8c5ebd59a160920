package notes_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// issue stores an open issue of project by author.
func (s *server) issue(projectID, author int64, title string, confidential bool) *domain.Issue {
	s.T.Helper()
	is := &domain.Issue{ProjectID: projectID, Title: title, State: domain.IssueOpened, AuthorID: author, Confidential: confidential}
	if err := s.issues.Create(context.Background(), is); err != nil {
		s.T.Fatalf("create issue %q: %v", title, err)
	}
	return is
}

// issueCounts reads an issue's votes and user notes: through the API when
// the issues module is in the app, from the store otherwise.
func (s *server) issueCounts(token string, is *domain.Issue) (up, down, notes int) {
	s.T.Helper()
	if s.routed("GET", "/api/v4/projects/{id}/issues/{issue_iid}") {
		var out struct {
			Upvotes        int `json:"upvotes"`
			Downvotes      int `json:"downvotes"`
			UserNotesCount int `json:"user_notes_count"`
		}
		s.Expect(200, "GET", fmt.Sprintf("/projects/%d/issues/%d", is.ProjectID, is.IID), token, nil).Decode(s.T, &out)
		return out.Upvotes, out.Downvotes, out.UserNotesCount
	}
	got, err := s.issues.Get(context.Background(), is.ProjectID, is.IID)
	if err != nil {
		s.T.Fatalf("read issue #%d: %v", is.IID, err)
	}
	return got.Upvotes, got.Downvotes, got.UserNotesCount
}

// routed reports whether the app serves method and pattern.
func (s *server) routed(method, pattern string) bool {
	for _, r := range s.Router.Routes() {
		if r.Method == method && r.Pattern == pattern {
			return true
		}
	}
	return false
}

// TestIssueNotes: notes and awards on issues, created_at for owners and
// admins only, confidential issues hidden as a whole, and the tracker
// switched off.
func TestIssueNotes(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("tracker", "public")
	author, g, rep, stranger := s.person("author"), s.person("guest"), s.person("reporter"), s.person("stranger")
	s.member(pid, g, domain.Guest)
	s.member(pid, rep, domain.Reporter)
	open := s.issue(pid, author.id, "Open bug", false)
	secret := s.issue(pid, author.id, "Secret bug", true)
	path := notesPath(pid, "issues", open.IID)

	n := s.post(stranger.token, path, "Me too")
	if n.NoteableType != "Issue" || n.NoteableID != open.ID || n.NoteableIID == nil || *n.NoteableIID != open.IID {
		t.Errorf("issue note = %+v", n)
	}
	s.Expect(201, "POST", path, g.token, apptest.Form("body", ":+1:"))
	s.Expect(201, "POST", path, rep.token, apptest.Form("body", ":thumbsdown:"))
	var award awardJSON
	s.Expect(201, "POST", path, author.token, apptest.Form("body", ":thumbsup:")).Decode(t, &award)
	if award.AwardableType != "Issue" || award.AwardableID != open.ID {
		t.Errorf("issue award = %+v", award)
	}
	if up, down, notes := s.issueCounts(stranger.token, open); up != 2 || down != 1 || notes != 1 {
		t.Errorf("issue counts %d up, %d down, %d notes; want 2, 1, 1", up, down, notes)
	}
	if got, err := s.issues.Get(context.Background(), pid, open.IID); err != nil || !got.UpdatedAt.After(open.UpdatedAt) {
		t.Errorf("issue updated_at after a note: %v (was %v), %v", got.UpdatedAt, open.UpdatedAt, err)
	}

	// created_at: honoured for admins and owners, ignored for others.
	past := "2016-01-02T03:04:05.678Z"
	var byRoot, byRep noteJSON
	s.Expect(201, "POST", path, s.RootToken, apptest.Form("body", "backdated", "created_at", past)).Decode(t, &byRoot)
	s.Expect(201, "POST", path, rep.token, apptest.Form("body", "not backdated", "created_at", past)).Decode(t, &byRep)
	if byRoot.CreatedAt != past || byRep.CreatedAt == past {
		t.Errorf("created_at: root's %s, reporter's %s; want only root's at %s", byRoot.CreatedAt, byRep.CreatedAt, past)
	}
	mrPid := s.project("other", "public")
	_, mrIID := s.mr(mrPid, "feature", "MR")
	var onMR noteJSON
	s.Expect(201, "POST", notesPath(mrPid, "merge_requests", mrIID), s.RootToken, apptest.Form("body", "x", "created_at", past)).Decode(t, &onMR)
	if onMR.CreatedAt == past {
		t.Errorf("created_at honoured on a merge request note")
	}

	// A confidential issue: 404 to guests and strangers on every route,
	// readable by its author, reporters and admins.
	secretPath := notesPath(pid, "issues", secret.IID)
	hidden := s.post(rep.token, secretPath, "internal discussion")
	const noIssue = `{"message":"404 Issue Not Found"}`
	for _, who := range []person{g, stranger} {
		s.ExpectBody(404, noIssue, "GET", secretPath, who.token, nil)
		s.ExpectBody(404, noIssue, "GET", notePath(pid, "issues", secret.IID, hidden.ID), who.token, nil)
		s.ExpectBody(404, noIssue, "POST", secretPath, who.token, apptest.Form("body", "peek"))
		s.ExpectBody(404, noIssue, "POST", secretPath, who.token, apptest.Form("body", ":+1:"))
		s.ExpectBody(404, noIssue, "PUT", notePath(pid, "issues", secret.IID, hidden.ID), who.token, apptest.Form("body", "x"))
		s.ExpectBody(404, noIssue, "DELETE", notePath(pid, "issues", secret.IID, hidden.ID), who.token, nil)
	}
	s.ExpectBody(404, noIssue, "GET", secretPath, "", nil)
	if list, _ := s.list(author.token, secretPath); len(list) != 1 {
		t.Errorf("the author sees %d notes of the confidential issue, want 1", len(list))
	}
	s.post(author.token, secretPath, "author replies")
	s.list(s.RootToken, secretPath)
	s.ExpectBody(404, noIssue, "GET", notesPath(pid, "issues", 9999), s.RootToken, nil)

	// The tracker switched off: the project's 404.
	s.Expect(200, "PUT", fmt.Sprintf("/projects/%d", pid), s.RootToken, apptest.Form("issues_enabled", "false"))
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "GET", path, s.RootToken, nil)
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", path, author.token, apptest.Form("body", "x"))
}

// TestConfidentialNoteEvents: a comment on a confidential issue shows in
// the feeds of those who may see the issue only.
func TestConfidentialNoteEvents(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("secrets", "public")
	author, g, rep := s.person("author"), s.person("guest"), s.person("reporter")
	s.member(pid, g, domain.Guest)
	s.member(pid, rep, domain.Reporter)
	secret := s.issue(pid, author.id, "Secret bug", true)
	open := s.issue(pid, author.id, "Open bug", false)
	s.Advance(time.Minute)
	hidden := s.post(rep.token, notesPath(pid, "issues", secret.IID), "internal")
	shown := s.post(rep.token, notesPath(pid, "issues", open.IID), "public")

	noteIDs := func(token, path string) []int64 {
		t.Helper()
		var out []int64
		for _, e := range s.commented(token, path) {
			out = append(out, *e.TargetID)
		}
		return out
	}
	feeds := []string{
		fmt.Sprintf("/projects/%d/events?action=commented", pid),
		fmt.Sprintf("/users/%d/events?action=commented", rep.id),
	}
	for _, feed := range feeds {
		for _, c := range []struct {
			who   string
			token string
			want  []int64
		}{
			{"anonymous", "", []int64{shown.ID}},
			{"guest", g.token, []int64{shown.ID}},
			{"reporter", rep.token, []int64{shown.ID, hidden.ID}},
			{"admin", s.RootToken, []int64{shown.ID, hidden.ID}},
		} {
			if got := noteIDs(c.token, feed); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("%s as %s: notes %v, want %v", feed, c.who, got, c.want)
			}
		}
	}
	var title struct {
		TargetTitle string `json:"target_title"`
	}
	s.Expect(200, "GET", fmt.Sprintf("/projects/%d/events?action=commented&per_page=1", pid), s.RootToken, nil).Decode(t, &[]any{&title})
	if title.TargetTitle != "Open bug" {
		t.Errorf("target_title = %q, want the issue's title", title.TargetTitle)
	}
}
