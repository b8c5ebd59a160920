package repository_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
)

// d2Action is one action of a multi-file commit body.
// d2Server is a running Hearth for the commit and file API tests.
type d2Server struct{ *repoServer }

func newD2(t *testing.T, opts ...apptest.Option) *d2Server {
	return &d2Server{newRepoServer(t, opts...)}
}

type d2Action map[string]string

// d2Body is a multi-file commit request.
func d2Body(branch, msg string, actions ...d2Action) map[string]any {
	return map[string]any{"branch": branch, "commit_message": msg, "actions": actions}
}

// d2Commit is the commit JSON the tests read.
type d2Commit struct {
	ID             string    `json:"id"`
	ShortID        string    `json:"short_id"`
	Title          string    `json:"title"`
	Message        string    `json:"message"`
	ParentIDs      []string  `json:"parent_ids"`
	AuthorName     string    `json:"author_name"`
	AuthorEmail    string    `json:"author_email"`
	CommitterName  string    `json:"committer_name"`
	CommitterEmail string    `json:"committer_email"`
	CommittedDate  time.Time `json:"committed_date"`
	Stats          *struct {
		Additions, Deletions, Total int
	} `json:"stats"`
}

// commit posts a multi-file commit as token and wants a 201.
func (s *d2Server) commit(token string, projectID int64, body map[string]any) d2Commit {
	s.t.Helper()
	var c d2Commit
	s.JSON(s.t, "POST", fmt.Sprintf("/projects/%d/repository/commits", projectID), token, body, 201, &c)
	return c
}
