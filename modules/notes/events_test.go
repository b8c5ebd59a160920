package notes_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

// feedEvent is an event of the feed with its embedded note kept raw.
type feedEvent struct {
	ActionName  string          `json:"action_name"`
	TargetID    *int64          `json:"target_id"`
	TargetType  *string         `json:"target_type"`
	TargetTitle *string         `json:"target_title"`
	AuthorID    int64           `json:"author_id"`
	Note        json.RawMessage `json:"note"`
}

func (s *server) commented(token, path string) []feedEvent {
	s.T.Helper()
	var out []feedEvent
	s.Expect(200, "GET", path, token, nil).Decode(s.T, &out)
	return out
}

// TestNoteEventsInFeed: a comment is GitLab's "commented on" event with
// the note embedded as it is now; awards and system notes add none.
func TestNoteEventsInFeed(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("feed", "public")
	mrID, iid := s.mr(pid, "feature", "Feed me")
	alice := s.person("alice")
	path := notesPath(pid, "merge_requests", iid)
	n := s.post(alice.token, path, "First!")
	s.Expect(201, "POST", path, alice.token, apptest.Form("body", ":+1:"))
	s.Expect(200, "PUT", fmt.Sprintf("/projects/%d/merge_requests/%d", pid, iid), s.RootToken, apptest.Form("state_event", "close"))

	projectFeed := fmt.Sprintf("/projects/%d/events?action=commented", pid)
	evs := s.commented("", projectFeed)
	if len(evs) != 1 {
		t.Fatalf("commented events = %+v, want 1", evs)
	}
	e := evs[0]
	if e.ActionName != "commented on" || e.TargetID == nil || *e.TargetID != n.ID || e.TargetType == nil ||
		*e.TargetType != "Note" || e.TargetTitle == nil || *e.TargetTitle != "Feed me" || e.AuthorID != alice.id {
		t.Errorf("event = %+v", e)
	}
	want := fmt.Sprintf(`{"id":%d,"body":"First!","attachment":null,"author":%s,"created_at":%q,"system":false,
		"noteable_id":%d,"noteable_type":"MergeRequest"}`, n.ID, authorJSON(t, s, alice), n.CreatedAt, mrID)
	if !apptest.JSONEqual(e.Note, []byte(want)) {
		t.Errorf("embedded note = %s\nwant %s", e.Note, want)
	}
	if got := s.commented(alice.token, fmt.Sprintf("/users/%d/events?target_type=note", alice.id)); len(got) != 1 {
		t.Errorf("alice's feed has %d note events, want 1", len(got))
	}
	if got := s.commented(alice.token, "/events?action=commented"); len(got) != 1 {
		t.Errorf("alice's own feed has %d note events, want 1", len(got))
	}

	// The feed shows the note as it is now, and nothing once it is gone.
	s.Expect(200, "PUT", notePath(pid, "merge_requests", iid, n.ID), alice.token, apptest.Form("body", "Edited"))
	var note struct{ Body string }
	if err := json.Unmarshal(s.commented("", projectFeed)[0].Note, &note); err != nil || note.Body != "Edited" {
		t.Errorf("embedded note after the edit = %+v, %v", note, err)
	}
	s.Expect(204, "DELETE", notePath(pid, "merge_requests", iid, n.ID), alice.token, nil)
	data := s.Expect(200, "GET", projectFeed, "", nil).Body
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || len(raw) != 1 {
		t.Fatalf("feed after delete: %s", data)
	}
	if _, ok := raw[0]["note"]; ok {
		t.Errorf("event of a deleted note still embeds it: %s", data)
	}
}

// authorJSON is the brief user the API renders for p.
func authorJSON(t *testing.T, s *server, p person) string {
	t.Helper()
	var u struct {
		ID        int64   `json:"id"`
		Name      string  `json:"name"`
		Username  string  `json:"username"`
		State     string  `json:"state"`
		AvatarURL *string `json:"avatar_url"`
		WebURL    string  `json:"web_url"`
	}
	s.Expect(200, "GET", fmt.Sprintf("/users/%d", p.id), s.RootToken, nil).Decode(t, &u)
	out, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
