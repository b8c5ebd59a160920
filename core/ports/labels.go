package ports

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

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
