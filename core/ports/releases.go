package ports

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

// ReleaseStore keeps the release descriptions of tags.
type ReleaseStore interface {
	// Create stores a release; core.ErrConflict when the tag has one.
	Create(ctx context.Context, r domain.Release) (domain.Release, error)
	// Update changes the description; core.ErrNotFound when there is none.
	Update(ctx context.Context, projectID int64, tag, description string) (domain.Release, error)
	// Get reads one release (core.ErrNotFound).
	Get(ctx context.Context, projectID int64, tag string) (domain.Release, error)
	// ListByTags returns the releases of the given tags, keyed by tag name
	// (one query, whatever the number of tags).
	ListByTags(ctx context.Context, projectID int64, tags []string) (map[string]domain.Release, error)
	// Delete removes the release of a tag; a missing one is not an error.
	Delete(ctx context.Context, projectID int64, tag string) error
}
