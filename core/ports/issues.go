package ports

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

// IssueStore keeps issues and their labels.
// Every read fills UserNotesCount (non-system notes), Upvotes and
// Downvotes (thumbsup / thumbsdown awards) in the same query.
type IssueStore interface {
	// Create inserts i, setting ID and the next IID of i.ProjectID (unique
	// under concurrent creates; IIDs are never reused). An unknown project
	// is core.ErrNotFound. Zero times mean now.
	Create(ctx context.Context, i *domain.Issue) error
	// Get reads one issue by project and IID (core.ErrNotFound).
	Get(ctx context.Context, projectID, iid int64) (*domain.Issue, error)
	// GetMany returns the issues with these IDs, in any order.
	GetMany(ctx context.Context, ids []int64) ([]domain.Issue, error)
	// ByIIDs returns the project's issues with these IIDs, in any order.
	ByIIDs(ctx context.Context, projectID int64, iids []int64) ([]domain.Issue, error)
	// Update applies fn under a row lock and saves (labels included); fn's
	// error is returned as is. UpdatedAt = now unless fn changed it.
	Update(ctx context.Context, projectID, iid int64, fn func(i *domain.Issue) error) (*domain.Issue, error)
	// Delete removes the issue with its labels, notes and awards (core.ErrNotFound).
	Delete(ctx context.Context, projectID, iid int64) error
	// List returns one page of f and the exact total.
	List(ctx context.Context, f domain.IssueFilter) ([]domain.Issue, int, error)
	// CountOpen counts the open issues of each project that viewer may
	// see (one query); projects without any are absent.
	CountOpen(ctx context.Context, projectIDs []int64, viewer domain.IssueViewer) (map[int64]int, error)
}

// MilestoneStore keeps project milestones.
type MilestoneStore interface {
	// Create inserts m with the next IID of its project; a title taken in
	// the project is core.ErrConflict ("Milestone already exists").
	Create(ctx context.Context, m *domain.Milestone) error
	// Get reads a milestone of a project by ID (core.ErrNotFound).
	Get(ctx context.Context, projectID, id int64) (*domain.Milestone, error)
	// GetMany returns the milestones with these IDs, in any order.
	GetMany(ctx context.Context, ids []int64) ([]domain.Milestone, error)
	// IDsByTitle returns the IDs of the project's milestones titled title.
	IDsByTitle(ctx context.Context, projectID int64, title string) ([]int64, error)
	// Update applies fn under a lock (conflicts as in Create).
	Update(ctx context.Context, projectID, id int64, fn func(m *domain.Milestone) error) (*domain.Milestone, error)
	// Delete removes the milestone; issues and merge requests lose it.
	Delete(ctx context.Context, projectID, id int64) error
	// List returns one page of f (due date, then ID) and the total.
	List(ctx context.Context, f domain.MilestoneFilter) ([]domain.Milestone, int, error)
}

// LabelStore keeps project labels. Names are unique in a project.
type LabelStore interface {
	// Create inserts l; a taken name is core.ErrConflict ("Label already exists").
	Create(ctx context.Context, l *domain.Label) error
	// Ensure creates the labels of these names that the project lacks,
	// with color, and ignores the others (race-free).
	Ensure(ctx context.Context, projectID int64, names []string, color string) error
	// GetByName reads one label (core.ErrNotFound).
	GetByName(ctx context.Context, projectID int64, name string) (*domain.Label, error)
	// List returns every label of the project sorted by name.
	List(ctx context.Context, projectID int64) ([]domain.Label, error)
	// Counts returns, per label name, the open and closed issues and open
	// merge requests carrying it that viewer may see.
	Counts(ctx context.Context, projectID int64, viewer domain.IssueViewer) (map[string]domain.LabelCounts, error)
	// Update applies fn to the label named name; a new name is carried
	// over to every issue and merge request that has the label. A taken
	// new name is core.ErrConflict; a missing label core.ErrNotFound.
	Update(ctx context.Context, projectID int64, name string, fn func(l *domain.Label) error) (*domain.Label, error)
	// Delete removes the label from the project, its issues and merge
	// requests (core.ErrNotFound).
	Delete(ctx context.Context, projectID int64, name string) error
}

// AwardStore keeps award emoji.
type AwardStore interface {
	// Create stores a; the same user, awardable and name twice is
	// core.ErrConflict.
	Create(ctx context.Context, a *domain.Award) error
	// List returns the awards of an awardable, oldest first.
	List(ctx context.Context, awardableType string, awardableID int64) ([]domain.Award, error)
	// Delete removes an award (core.ErrNotFound).
	Delete(ctx context.Context, id int64) error
}

// SnippetStore keeps project snippets.
type SnippetStore interface {
	// Create inserts s and sets its ID.
	Create(ctx context.Context, s *domain.Snippet) error
	// Get reads a project's snippet (core.ErrNotFound).
	Get(ctx context.Context, projectID, id int64) (*domain.Snippet, error)
	// Update applies fn under a lock and saves.
	Update(ctx context.Context, projectID, id int64, fn func(s *domain.Snippet) error) (*domain.Snippet, error)
	// Delete removes the snippet and its notes; a missing one is not an error.
	Delete(ctx context.Context, projectID, id int64) error
	// List returns one page of f, newest first, and the total.
	List(ctx context.Context, f domain.SnippetFilter) ([]domain.Snippet, int, error)
}

// IssueCounter counts the open issues a viewer may see (project
// rendering's open_issues_count). The issue store implements it.
type IssueCounter interface {
	CountOpen(ctx context.Context, projectIDs []int64, viewer domain.IssueViewer) (map[int64]int, error)
}
