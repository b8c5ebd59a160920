package ports

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

// ProtectedBranchStore keeps branch protection rules per project.
type ProtectedBranchStore interface {
	// Protect creates or updates the rule named b.Name and returns it.
	Protect(ctx context.Context, b domain.ProtectedBranch) (domain.ProtectedBranch, error)
	// Create adds the rule b; a rule of that name in the project is
	// core.ErrConflict, an unknown project core.ErrNotFound.
	Create(ctx context.Context, b domain.ProtectedBranch) (domain.ProtectedBranch, error)
	// Get returns the rule named exactly name (wildcards are not
	// matched); none is core.ErrNotFound.
	Get(ctx context.Context, projectID int64, name string) (domain.ProtectedBranch, error)
	// Unprotect removes the rule; a missing rule is not an error.
	Unprotect(ctx context.Context, projectID int64, name string) error
	// List returns the project's rules sorted by name.
	List(ctx context.Context, projectID int64) ([]domain.ProtectedBranch, error)
}
