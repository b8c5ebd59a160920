package repository_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// authored writes one commit by (name, email) at hour h of a fixed day on
// branch (from start when new), so the history's order is known.
func (s *repoServer) authored(projectID int64, branch, start, path, name, email string, h int) {
	s.T.Helper()
	sig := domain.Signature{Name: name, Email: email, When: time.Date(2024, 1, 1, h, 0, 0, 0, time.UTC)}
	_, err := s.Repos.CommitFiles(context.Background(), domain.RepoPath(projectID), domain.CommitFiles{
		Branch: branch, StartBranch: start, Message: "by " + name, Author: sig, Committer: sig,
		Actions: []domain.FileAction{{Action: domain.FileCreate, Path: path, Content: []byte(path)}},
	})
	if err != nil {
		s.T.Fatalf("commit %s by %s: %v", path, name, err)
	}
}

func contributorsPath(projectID int64, query string) string {
	return fmt.Sprintf("/projects/%d/repository/contributors%s", projectID, query)
}

// TestContributors: the default branch's authors grouped by email in the
// order of their newest commit (GitLab 9.x), later GitLab's order_by, sort
// and ref, pagination, and GitLab's answers for an empty repository.
func TestContributors(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	pid := s.projectID("contrib", "private")
	s.authored(pid, "master", "", "a1", "Ada Lovelace", "ada@example.com", 1)
	s.authored(pid, "master", "", "b2", "Bob", "bob@example.com", 2)
	s.authored(pid, "master", "", "a3", "Ada King", "ada@example.com", 3)
	s.authored(pid, "other", "master", "c4", "Carol", "carol@example.com", 4)

	const (
		ada   = `{"name":"Ada King","email":"ada@example.com","commits":2,"additions":0,"deletions":0}`
		bob   = `{"name":"Bob","email":"bob@example.com","commits":1,"additions":0,"deletions":0}`
		carol = `{"name":"Carol","email":"carol@example.com","commits":1,"additions":0,"deletions":0}`
	)
	for _, tc := range []struct{ query, want string }{
		{"", "[" + ada + "," + bob + "]"},
		{"?ref=other", "[" + carol + "," + ada + "," + bob + "]"},
		{"?ref=nope", "[]"},
		{"?order_by=name", "[" + ada + "," + bob + "]"},
		{"?order_by=name&sort=desc", "[" + bob + "," + ada + "]"},
		{"?order_by=email&sort=asc&ref=other", "[" + ada + "," + bob + "," + carol + "]"},
		{"?order_by=commits", "[" + bob + "," + ada + "]"},
		{"?sort=desc&ref=other", "[" + ada + "," + carol + "," + bob + "]"},
		{"?per_page=1&page=2", "[" + bob + "]"},
	} {
		s.ExpectBody(200, tc.want, "GET", contributorsPath(pid, tc.query), s.RootToken, nil)
	}
	h := s.Expect(200, "GET", contributorsPath(pid, "?per_page=1"), s.RootToken, nil).Header
	if h.Get("X-Total") != "2" || h.Get("X-Total-Pages") != "2" || h.Get("X-Next-Page") != "2" {
		t.Errorf("pagination headers: %v", h)
	}
	s.ExpectBody(400, `{"error":"order_by does not have a valid value, sort does not have a valid value"}`,
		"GET", contributorsPath(pid, "?order_by=date&sort=up"), s.RootToken, nil)

	empty := s.projectID("contrib-empty", "public")
	s.ExpectBody(404, `{"message":"404 Not Found"}`, "GET", contributorsPath(empty, ""), s.RootToken, nil)
}

// TestContributorsPermissions: download_code, as every repository read.
func TestContributorsPermissions(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	tm := newTeam(s, "contrib-team")
	const notFound = `{"message":"404 Project Not Found"}`
	for _, tok := range []string{"", tm.stranger, tm.guest} {
		s.ExpectBody(404, notFound, "GET", contributorsPath(tm.id, ""), tok, nil)
		// Access comes before validation: nothing leaks through a 400.
		s.ExpectBody(404, notFound, "GET", contributorsPath(tm.id, "?order_by=bad"), tok, nil)
	}
	s.ExpectBody(404, notFound, "GET", contributorsPath(9999, ""), tm.reporter, nil)
	s.ExpectBody(200, `[{"name":"Seeder","email":"seeder@example.com","commits":2,"additions":0,"deletions":0}]`,
		"GET", contributorsPath(tm.id, ""), tm.reporter, nil)

	pub := s.seed("contrib-public", "public")
	list := s.Expect(200, "GET", contributorsPath(pub.id, ""), "", nil).List(t)
	if len(list) != 1 || list[0]["commits"] != float64(2) {
		t.Errorf("public project, anonymous: %v", list)
	}
}
