package repository

import (
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// commitJSON is GitLab 9.x's Commit entity (RepoCommit). Stats and Status
// appear in create and single-commit responses only (CommitDetail); status
// stays null until CI exists.
type commitJSON struct {
	ID             string    `json:"id"`
	ShortID        string    `json:"short_id"`
	Title          string    `json:"title"`
	CreatedAt      time.Time `json:"created_at"`
	ParentIDs      []string  `json:"parent_ids"`
	Message        string    `json:"message"`
	AuthorName     string    `json:"author_name"`
	AuthorEmail    string    `json:"author_email"`
	AuthoredDate   time.Time `json:"authored_date"`
	CommitterName  string    `json:"committer_name"`
	CommitterEmail string    `json:"committer_email"`
	CommittedDate  time.Time `json:"committed_date"`
}

type statsJSON struct {
	Additions int `json:"additions"`
	Deletions int `json:"deletions"`
	Total     int `json:"total"`
}

type commitDetailJSON struct {
	commitJSON
	Stats  *statsJSON `json:"stats,omitempty"`
	Status *string    `json:"status"`
}

func newCommitJSON(c domain.Commit) commitJSON {
	parents := c.ParentIDs
	if parents == nil {
		parents = []string{}
	}
	return commitJSON{
		ID: c.ID, ShortID: c.ShortID(), Title: c.Title(),
		CreatedAt: c.Committer.When, ParentIDs: parents, Message: c.Message,
		AuthorName: c.Author.Name, AuthorEmail: c.Author.Email, AuthoredDate: c.Author.When,
		CommitterName: c.Committer.Name, CommitterEmail: c.Committer.Email, CommittedDate: c.Committer.When,
	}
}

func newCommitDetailJSON(c domain.Commit, st domain.CommitStats) commitDetailJSON {
	return commitDetailJSON{
		commitJSON: newCommitJSON(c),
		Stats:      &statsJSON{Additions: st.Additions, Deletions: st.Deletions, Total: st.Additions + st.Deletions},
	}
}
