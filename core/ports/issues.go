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

// IssueCounter is the part of IssueStore that project rendering needs
// (open_issues_count). The app provides it from the issue store.
type IssueCounter interface {
	CountOpen(ctx context.Context, projectIDs []int64, viewer domain.IssueViewer) (map[int64]int, error)
}

// IssueReader is the part of IssueStore that merge requests need to find
// the issues they close. The app provides it from the issue store.
type IssueReader interface {
	// ByIIDs returns the project's issues with these IIDs, in any order.
	ByIIDs(ctx context.Context, projectID int64, iids []int64) ([]domain.Issue, error)
}
