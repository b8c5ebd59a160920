package events_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

const (
	shaA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	shaB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	shaC = "cccccccccccccccccccccccccccccccccccccccc"
)

// pushFixture is a server with a user (alice) and a public project of hers.
type pushFixture struct {
	*server
	alice   int64
	project struct {
		ID             int64  `json:"id"`
		WebURL         string `json:"web_url"`
		SSHURLToRepo   string `json:"ssh_url_to_repo"`
		LastActivityAt string `json:"last_activity_at"`
	}
}

func newPushFixture(t *testing.T, s *server) *pushFixture {
	t.Helper()
	f := &pushFixture{server: s}
	root := s.Srv.RootToken
	f.alice = apptest.ID(s.Expect(http.StatusCreated, http.MethodPost, "/users", root, map[string]any{
		"username": "alice", "name": "Alice Liddell", "email": "alice@example.com", "password": "wonderland-1234",
	}).Object(t))
	s.Expect(http.StatusCreated, http.MethodPost, fmt.Sprintf("/projects/user/%d", f.alice), root, map[string]any{
		"name": "Demo", "path": "demo", "description": "A demo", "visibility": "public",
	}).Decode(t, &f.project)
	return f
}

// publish sends ev outside any transaction.
func (f *pushFixture) publish(t *testing.T, ev domain.PushEvent) {
	t.Helper()
	if err := f.bus.Publish(context.Background(), ev); err != nil {
		t.Fatalf("publish %s %s..%s: %v", ev.Ref, ev.Before, ev.After, err)
	}
}

func (f *pushFixture) feed(t *testing.T, path string) []feedEvent {
	t.Helper()
	return feed[feedEvent](f.server, f.Srv.RootToken, path)
}

// TestPushEventRecorded publishes a new branch, an update of it and its
// deletion, and reads them back from the project's and the pusher's feeds
// with GitLab's action names and push data.
func TestPushEventRecorded(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		f := newPushFixture(t, s)
		pid := f.project.ID
		at := time.Now().UTC().Add(3 * time.Hour).Truncate(time.Second)
		zone := time.FixedZone("CEST", 2*3600)
		older := domain.PushCommit{ID: shaB, Message: "Add a file\n\nWith a body.", Timestamp: time.Date(2017, 5, 10, 12, 0, 0, 0, zone),
			Author: domain.Signature{Name: "Ann Author", Email: "ann@example.com"}}
		newer := domain.PushCommit{ID: shaC, Message: "Fix it", Timestamp: time.Date(2017, 5, 11, 8, 30, 0, 0, time.UTC),
			Author: domain.Signature{Name: "Bob Builder", Email: "bob@example.com"}}
		f.publish(t, domain.PushEvent{ProjectID: pid, Actor: f.alice, Ref: "refs/heads/feature", Before: domain.ZeroID, After: shaA,
			Commits: []domain.PushCommit{{ID: shaA, Message: "first", Timestamp: at}}, TotalCommits: 1, At: at})
		f.publish(t, domain.PushEvent{ProjectID: pid, Actor: f.alice, Ref: "refs/heads/feature", Before: shaA, After: shaC,
			Commits: []domain.PushCommit{newer, older}, TotalCommits: 25, At: at.Add(time.Minute)})
		f.publish(t, domain.PushEvent{ProjectID: pid, Actor: f.alice, Ref: "refs/heads/feature", Before: shaC, After: domain.ZeroID,
			At: at.Add(2 * time.Minute)})

		pushed := f.feed(t, fmt.Sprintf("/projects/%d/events?action=pushed", pid))
		if diff := cmp.Diff([]string{"deleted", "pushed to", "pushed new"}, actionNames(pushed)); diff != "" {
			t.Fatalf("project feed, action=pushed (-want +got):\n%s", diff)
		}
		for _, e := range pushed {
			if e.TargetID != nil || e.TargetType != nil || e.TargetTitle != nil || e.AuthorID != f.alice ||
				e.AuthorUsername != "alice" || e.ProjectID == nil || *e.ProjectID != pid {
				t.Errorf("push event %+v: want no target, alice as author, the project", e)
			}
		}
		if got, err := time.Parse(time.RFC3339, pushed[1].CreatedAt); err != nil || !got.Equal(at.Add(time.Minute)) {
			t.Errorf("created_at = %q, want the push time %v", pushed[1].CreatedAt, at.Add(time.Minute))
		}

		var data map[string]any
		if err := json.Unmarshal(pushed[1].Data, &data); err != nil {
			t.Fatalf("data %s: %v", pushed[1].Data, err)
		}
		commitURL := func(sha string) string { return f.project.WebURL + "/commit/" + sha }
		want := map[string]any{
			"before": shaA, "after": shaC, "ref": "refs/heads/feature",
			"user_id": float64(f.alice), "user_name": "Alice Liddell",
			"repository": map[string]any{
				"name": "Demo", "url": f.project.SSHURLToRepo, "description": "A demo", "homepage": f.project.WebURL,
			},
			// Oldest first, as GitLab lists them.
			"commits": []any{
				map[string]any{"id": shaB, "message": "Add a file\n\nWith a body.", "timestamp": "2017-05-10T12:00:00+02:00",
					"url": commitURL(shaB), "author": map[string]any{"name": "Ann Author", "email": "ann@example.com"}},
				map[string]any{"id": shaC, "message": "Fix it", "timestamp": "2017-05-11T08:30:00Z",
					"url": commitURL(shaC), "author": map[string]any{"name": "Bob Builder", "email": "bob@example.com"}},
			},
			"total_commits_count": float64(25),
		}
		if diff := cmp.Diff(want, data); diff != "" {
			t.Errorf("push data (-want +got):\n%s", diff)
		}
		if !strings.HasPrefix(f.project.SSHURLToRepo, "git@") || !strings.HasSuffix(f.project.SSHURLToRepo, "/demo.git") {
			t.Errorf("ssh_url_to_repo = %q", f.project.SSHURLToRepo)
		}
		var deleted struct {
			Before, After string
			Commits       []any `json:"commits"`
			Total         int   `json:"total_commits_count"`
		}
		if err := json.Unmarshal(pushed[0].Data, &deleted); err != nil || deleted.After != domain.ZeroID || deleted.Before != shaC ||
			deleted.Commits == nil || len(deleted.Commits) != 0 || deleted.Total != 0 {
			t.Errorf("data of the deletion = %s (%v); want an empty commits list", pushed[0].Data, err)
		}

		// The pusher's feed has them too; other filters leave them out.
		mine := f.feed(t, fmt.Sprintf("/users/%d/events?action=pushed", f.alice))
		if diff := cmp.Diff([]string{"deleted", "pushed to", "pushed new"}, actionNames(mine)); diff != "" {
			t.Errorf("user feed, action=pushed (-want +got):\n%s", diff)
		}
		byName := actionNames(f.feed(t, "/users/alice/events?sort=asc"))
		if n := len(byName); n < 3 || !cmp.Equal(byName[n-3:], []string{"pushed new", "pushed to", "deleted"}) {
			t.Errorf("user feed ascending = %v, want the pushes last", byName)
		}
		created := f.feed(t, fmt.Sprintf("/projects/%d/events?action=created", pid))
		for _, e := range created {
			if strings.HasPrefix(e.ActionName, "pushed") || e.ActionName == "deleted" {
				t.Errorf("action=created lists %q", e.ActionName)
			}
		}
		all := f.feed(t, fmt.Sprintf("/projects/%d/events", pid))
		if len(all) != len(created)+3 {
			t.Errorf("project feed has %d events, want %d created + 3 pushed", len(all), len(created))
		}

		// The project's last activity moved to the last push; the
		// pusher was active that day.
		var proj struct {
			LastActivityAt string `json:"last_activity_at"`
		}
		f.Expect(http.StatusOK, http.MethodGet, fmt.Sprintf("/projects/%d", pid), f.Srv.RootToken, nil).Decode(t, &proj)
		if got, err := time.Parse(time.RFC3339, proj.LastActivityAt); err != nil || !got.Equal(at.Add(2*time.Minute)) {
			t.Errorf("last_activity_at = %q, want %v", proj.LastActivityAt, at.Add(2*time.Minute))
		}
		var user struct {
			LastActivityOn *string `json:"last_activity_on"`
		}
		f.Expect(http.StatusOK, http.MethodGet, fmt.Sprintf("/users/%d", f.alice), f.Srv.RootToken, nil).Decode(t, &user)
		if want := at.Add(2 * time.Minute).Format(time.DateOnly); user.LastActivityOn == nil || *user.LastActivityOn != want {
			t.Errorf("last_activity_on = %v, want %s", user.LastActivityOn, want)
		}
	})
}

// TestPushEventTagAndOlderPush: a tag push is "pushed new" with its data,
// and a push stamped earlier than the project's last activity does not move
// it back.
func TestPushEventTagAndOlderPush(t *testing.T) {
	t.Parallel()
	f := newPushFixture(t, newServer(t))
	pid := f.project.ID
	before, err := time.Parse(time.RFC3339, f.project.LastActivityAt)
	if err != nil {
		t.Fatalf("last_activity_at %q: %v", f.project.LastActivityAt, err)
	}
	f.publish(t, domain.PushEvent{ProjectID: pid, Actor: f.alice, Ref: "refs/tags/v1.0", Before: domain.ZeroID, After: shaA,
		Commits:      []domain.PushCommit{{ID: shaA, Message: "tagged", Timestamp: time.Date(2017, 1, 2, 3, 4, 5, 0, time.UTC)}},
		TotalCommits: 1, At: before.Add(-time.Hour)})
	evs := f.feed(t, fmt.Sprintf("/projects/%d/events?action=pushed", pid))
	if len(evs) != 1 || evs[0].ActionName != "pushed new" {
		t.Fatalf("feed = %v, want one \"pushed new\"", actionNames(evs))
	}
	var data struct {
		Ref     string `json:"ref"`
		Commits []struct {
			ID        string `json:"id"`
			Timestamp string `json:"timestamp"`
			URL       string `json:"url"`
		} `json:"commits"`
		Total int `json:"total_commits_count"`
	}
	if err := json.Unmarshal(evs[0].Data, &data); err != nil {
		t.Fatal(err)
	}
	if data.Ref != "refs/tags/v1.0" || data.Total != 1 || len(data.Commits) != 1 || data.Commits[0].ID != shaA ||
		data.Commits[0].Timestamp != "2017-01-02T03:04:05Z" || data.Commits[0].URL != f.project.WebURL+"/commit/"+shaA {
		t.Errorf("tag push data = %s", evs[0].Data)
	}
	var proj struct {
		LastActivityAt string `json:"last_activity_at"`
	}
	f.Expect(http.StatusOK, http.MethodGet, fmt.Sprintf("/projects/%d", pid), f.Srv.RootToken, nil).Decode(t, &proj)
	if got, err := time.Parse(time.RFC3339, proj.LastActivityAt); err != nil || !got.Equal(before) {
		t.Errorf("last_activity_at = %q, want it kept at %v", proj.LastActivityAt, before)
	}
}

// TestPushEventDeletedProject: a push announced for a project that is gone
// records nothing and does not fail the publisher.
func TestPushEventDeletedProject(t *testing.T) {
	t.Parallel()
	f := newPushFixture(t, newServer(t))
	f.publish(t, domain.PushEvent{ProjectID: f.project.ID + 1000, Actor: f.alice, Ref: "refs/heads/main",
		Before: domain.ZeroID, After: shaA, At: time.Now()})
	if evs := f.feed(t, fmt.Sprintf("/users/%d/events?action=pushed", f.alice)); len(evs) != 0 {
		t.Errorf("alice's feed = %v, want nothing", actionNames(evs))
	}
}

// TestPushEventFromAPICommit: a commit made through the repository API
// (which publishes a PushEvent) shows in the feeds as GitLab shows it, with
// the commit's real SHA and message, attributed to the committing user.
func TestPushEventFromAPICommit(t *testing.T) {
	t.Parallel()
	f := newPushFixture(t, newServer(t))
	pid := f.project.ID
	var commit struct {
		ID string `json:"id"`
	}
	f.Expect(http.StatusCreated, http.MethodPost, fmt.Sprintf("/projects/%d/repository/files/README.md", pid), f.Srv.RootToken, map[string]any{
		"branch": "master", "content": "hello\n", "commit_message": "Add README",
	})
	f.Expect(http.StatusOK, http.MethodGet, fmt.Sprintf("/projects/%d/repository/commits/master", pid), f.Srv.RootToken, nil).Decode(t, &commit)
	evs := f.feed(t, fmt.Sprintf("/projects/%d/events?action=pushed", pid))
	if len(evs) != 1 || evs[0].ActionName != "pushed new" {
		t.Fatalf("feed = %v, want one \"pushed new\"", actionNames(evs))
	}
	var data struct {
		Before   string `json:"before"`
		After    string `json:"after"`
		Ref      string `json:"ref"`
		UserName string `json:"user_name"`
		Commits  []struct {
			ID      string `json:"id"`
			Message string `json:"message"`
			URL     string `json:"url"`
		} `json:"commits"`
		Total int `json:"total_commits_count"`
	}
	if err := json.Unmarshal(evs[0].Data, &data); err != nil {
		t.Fatal(err)
	}
	if data.Before != domain.ZeroID || data.After != commit.ID || data.Ref != "refs/heads/master" || data.Total != 1 ||
		len(data.Commits) != 1 || data.Commits[0].ID != commit.ID || data.Commits[0].Message != "Add README" ||
		data.Commits[0].URL != f.project.WebURL+"/commit/"+commit.ID || data.UserName != "Administrator" {
		t.Errorf("push data = %s; commit %s", evs[0].Data, commit.ID)
	}
	root := f.feed(t, "/events?action=pushed")
	if len(root) != 1 || root[0].AuthorUsername != "root" {
		t.Errorf("root's own pushed events = %+v", root)
	}
}
