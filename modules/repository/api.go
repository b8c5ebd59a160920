package repository

import (
	"time"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// commitJSON is GitLab 9.x's Commit entity (RepoCommit). Stats and
// last_pipeline appear in create and single-commit responses only
// (CommitDetail); status is the latest pipeline's, null without one.
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
	Stats        *statsJSON             `json:"stats,omitempty"`
	Status       *string                `json:"status"`
	LastPipeline *apijson.PipelineBasic `json:"last_pipeline"`
}

// listedCommitJSON is a commit of a list, with its latest pipeline's
// status.
type listedCommitJSON struct {
	commitJSON
	Status *string `json:"status"`
}

// pipelineStatus is the status of sha's latest pipeline in m (nil: none).
func pipelineStatus(m map[string]domain.Pipeline, sha string) *string {
	p, ok := m[sha]
	if !ok {
		return nil
	}
	st := string(p.Status)
	return &st
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

// mapAll renders every item of a list (an empty array, never null).
func mapAll[T, J any](list []T, render func(T) J) []J {
	out := make([]J, 0, len(list))
	for _, item := range list {
		out = append(out, render(item))
	}
	return out
}

func newCommitDetailJSON(c CommitDetail) commitDetailJSON {
	st := c.Stats
	out := commitDetailJSON{
		commitJSON: newCommitJSON(c.Commit),
		Stats:      &statsJSON{Additions: st.Additions, Deletions: st.Deletions, Total: st.Additions + st.Deletions},
	}
	if c.Pipeline != nil {
		st := string(c.Pipeline.Status)
		lp := apijson.PipelineBasicOf(c.Pipeline)
		out.Status, out.LastPipeline = &st, &lp
	}
	return out
}

// branchJSON is GitLab 9.x's RepoBranch entity.
type branchJSON struct {
	Name               string     `json:"name"`
	Commit             commitJSON `json:"commit"`
	Merged             bool       `json:"merged"`
	Protected          bool       `json:"protected"`
	DevelopersCanPush  bool       `json:"developers_can_push"`
	DevelopersCanMerge bool       `json:"developers_can_merge"`
}

func newBranchJSON(b BranchInfo) branchJSON {
	out := branchJSON{Name: b.Name, Commit: newCommitJSON(b.Commit), Merged: b.Merged}
	if rule := b.Protection; rule != nil {
		out.Protected = true
		out.DevelopersCanPush = rule.DevelopersCanPush()
		out.DevelopersCanMerge = rule.DevelopersCanMerge()
	}
	return out
}

// releaseJSON is GitLab 9.x's Release entity.
type releaseJSON struct {
	TagName     string `json:"tag_name"`
	Description string `json:"description"`
}

func newReleaseJSON(r domain.Release) releaseJSON {
	return releaseJSON{TagName: r.TagName, Description: r.Description}
}

// tagJSON is GitLab 9.x's RepoTag entity: message is null for a
// lightweight tag, release null when the tag has none.
type tagJSON struct {
	Name    string       `json:"name"`
	Message *string      `json:"message"`
	Commit  commitJSON   `json:"commit"`
	Release *releaseJSON `json:"release"`
}

func newTagJSON(t TagInfo) tagJSON {
	out := tagJSON{Name: t.Name, Message: t.Message, Commit: newCommitJSON(t.Commit)}
	if t.Release != nil {
		j := newReleaseJSON(*t.Release)
		out.Release = &j
	}
	return out
}

// commitNoteJSON is GitLab's CommitNote.
type commitNoteJSON struct {
	Note      string            `json:"note"`
	Path      *string           `json:"path"`
	Line      *int              `json:"line"`
	LineType  *string           `json:"line_type"`
	Author    apijson.UserBasic `json:"author"`
	CreatedAt httpx.Time        `json:"created_at"`
}

// newCommitNoteJSON renders a comment with links under base (the external
// URL); a deleted author is GitLab's ghost user.
func newCommitNoteJSON(base string, c CommitNote) commitNoteJSON {
	author := apijson.UserBasic{ID: c.AuthorID, Name: "Ghost User", Username: "ghost", State: "active", WebURL: base + "/ghost"}
	if c.Author != nil {
		author = apijson.UserBasicOf(base, c.Author)
	}
	return commitNoteJSON{Note: c.Note, Path: c.Path, Line: c.Line, LineType: c.LineType, Author: author, CreatedAt: httpx.TimeOf(c.CreatedAt)}
}

// contributorJSON is GitLab's Contributor entity. GitLab never counted
// lines for it: additions and deletions are always 0.
type contributorJSON struct {
	Name      string `json:"name"`
	Email     string `json:"email"`
	Commits   int    `json:"commits"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
}

func newContributorJSON(c domain.Contributor) contributorJSON {
	return contributorJSON{Name: c.Name, Email: c.Email, Commits: c.Commits}
}
