package ports

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

// SnippetStore keeps project snippets and personal ones: a projectID of 0
// names the personal snippets (domain.Snippet.ProjectID 0), never those
// of a project.
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
