package ports

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

// CommitCommentStore keeps comments on commits.
type CommitCommentStore interface {
	// Create stores c and returns it with ID and CreatedAt set.
	Create(ctx context.Context, c domain.CommitComment) (domain.CommitComment, error)
	// List returns the comments of a commit, oldest first, one page, and
	// the total count.
	List(ctx context.Context, projectID int64, commitID string, page domain.Page) ([]domain.CommitComment, int, error)
}
