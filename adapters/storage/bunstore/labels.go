package bunstore

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// TEMPORARY stubs until the store is written.
type labelStore struct{ s *Store }

func (st *labelStore) Create(ctx context.Context, l *domain.Label) error { return errTodo }
func (st *labelStore) Ensure(ctx context.Context, projectID int64, names []string, color string) error {
	return nil
}
func (st *labelStore) GetByName(ctx context.Context, projectID int64, name string) (*domain.Label, error) {
	return nil, errTodo
}
func (st *labelStore) List(ctx context.Context, projectID int64) ([]domain.Label, error) {
	return nil, errTodo
}
func (st *labelStore) Counts(ctx context.Context, projectID int64, viewer domain.IssueViewer) (map[string]domain.LabelCounts, error) {
	return nil, errTodo
}
func (st *labelStore) Update(ctx context.Context, projectID int64, name string, fn func(l *domain.Label) error) (*domain.Label, error) {
	return nil, errTodo
}
func (st *labelStore) Delete(ctx context.Context, projectID int64, name string) error { return errTodo }

var _ ports.LabelStore = (*labelStore)(nil)
