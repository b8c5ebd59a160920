package notes_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// snippet stores a snippet of project by author.
func (s *server) snippet(projectID, author int64, title string, v domain.Visibility) *domain.Snippet {
	s.T.Helper()
	sn := &domain.Snippet{ProjectID: projectID, AuthorID: author, Title: title, FileName: "a.rb", Content: "puts 1", Visibility: v}
	if err := s.snippets.Create(context.Background(), sn); err != nil {
		s.T.Fatalf("create snippet %q: %v", title, err)
	}
	return sn
}

// TestSnippetNotes: notes on project snippets follow the snippet's own
// visibility; the single read answers the snippet-shaped object.
func TestSnippetNotes(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("snips", "public")
	author, member, stranger := s.person("author"), s.person("member"), s.person("stranger")
	s.member(pid, member, domain.Guest)
	pub := s.snippet(pid, author.id, "Public", domain.Public)
	priv := s.snippet(pid, author.id, "Private", domain.Private)
	intl := s.snippet(pid, author.id, "Internal", domain.Internal)

	path := notesPath(pid, "snippets", pub.ID)
	n := s.post(stranger.token, path, "Nice snippet")
	if n.NoteableType != "Snippet" || n.NoteableID != pub.ID || n.NoteableIID != nil {
		t.Errorf("snippet note = %+v, want noteable_iid null", n)
	}
	data := s.Expect(200, "GET", notePath(pid, "snippets", pub.ID, n.ID), "", nil).Body
	if got, want := keys(t, data), []string{"author", "created_at", "expires_at", "file_name", "id", "title", "updated_at"}; !slices.Equal(got, want) {
		t.Errorf("single snippet note keys = %v, want %v", got, want)
	}
	want := fmt.Sprintf(`{"id":%d,"title":null,"file_name":null,"author":%s,"expires_at":null,"updated_at":%q,"created_at":%q}`,
		n.ID, authorJSON(t, s, stranger), n.UpdatedAt, n.CreatedAt)
	if !apptest.JSONEqual(data, []byte(want)) {
		t.Errorf("single snippet note = %s\nwant %s", data, want)
	}
	if list, _ := s.list("", path); len(list) != 1 || list[0].ID != n.ID || list[0].NoteableType != "Snippet" {
		t.Errorf("list = %+v", list)
	}
	var award awardJSON
	s.Expect(201, "POST", path, stranger.token, apptest.Form("body", ":heart:")).Decode(t, &award)
	if award.Name != "heart" || award.AwardableType != "Snippet" || award.AwardableID != pub.ID {
		t.Errorf("snippet award = %+v", award)
	}
	var edited noteJSON
	s.Expect(200, "PUT", notePath(pid, "snippets", pub.ID, n.ID), stranger.token, apptest.Form("body", "Very nice")).Decode(t, &edited)
	if edited.Body != "Very nice" || edited.NoteableType != "Snippet" {
		t.Errorf("edited = %+v", edited)
	}

	// Private snippets: the author and project members; internal ones:
	// signed-in users.
	const noSnippet = `{"message":"404 Snippet Not Found"}`
	privPath := notesPath(pid, "snippets", priv.ID)
	s.post(author.token, privPath, "note to self")
	s.list(member.token, privPath)
	s.ExpectBody(404, noSnippet, "GET", privPath, stranger.token, nil)
	s.ExpectBody(404, noSnippet, "POST", privPath, stranger.token, apptest.Form("body", "peek"))
	s.ExpectBody(404, noSnippet, "GET", privPath, "", nil)
	intlPath := notesPath(pid, "snippets", intl.ID)
	s.ExpectBody(404, noSnippet, "GET", intlPath, "", nil)
	s.post(stranger.token, intlPath, "signed in")
	s.ExpectBody(404, noSnippet, "GET", notesPath(pid, "snippets", priv.ID+1000), s.RootToken, nil)
	// A note is read through its own snippet only.
	s.ExpectBody(404, `{"message":"404 Note Not Found"}`, "GET", notePath(pid, "snippets", intl.ID, n.ID), s.RootToken, nil)

	// Events of notes on snippets that are not public are confidential.
	feed := fmt.Sprintf("/projects/%d/events?action=commented", pid)
	titles := func(token string) []string {
		t.Helper()
		var out []string
		for _, e := range s.commented(token, feed) {
			out = append(out, *e.TargetTitle)
		}
		slices.Sort(out)
		return out
	}
	if got := titles(stranger.token); !slices.Equal(got, []string{"Internal", "Public"}) {
		t.Errorf("stranger's view of the snippet note events = %v (their own internal note and the public one)", got)
	}
	if got := titles(""); !slices.Equal(got, []string{"Public"}) {
		t.Errorf("anonymous view of the snippet note events = %v", got)
	}
	if got := titles(s.RootToken); !slices.Equal(got, []string{"Internal", "Private", "Public"}) {
		t.Errorf("admin's view of the snippet note events = %v", got)
	}

	s.Expect(204, "DELETE", notePath(pid, "snippets", pub.ID, n.ID), stranger.token, nil)
	if awards, err := s.awardsOf(domain.TargetSnippet, pub.ID); err != nil || len(awards) != 1 {
		t.Errorf("awards of the snippet after deleting a note: %d, %v", len(awards), err)
	}

	// Snippets switched off: the project's 404.
	s.Expect(200, "PUT", fmt.Sprintf("/projects/%d", pid), s.RootToken, apptest.Form("snippets_enabled", "false"))
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "GET", path, s.RootToken, nil)
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", path, s.RootToken, apptest.Form("body", "x"))
}
