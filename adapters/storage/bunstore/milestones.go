package bunstore

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// TEMPORARY stubs until the store is written.
type milestoneStore struct{ s *Store }

func (st *milestoneStore) Create(ctx context.Context, m *domain.Milestone) error { return errTodo }
func (st *milestoneStore) Get(ctx context.Context, projectID, id int64) (*domain.Milestone, error) {
	return nil, errTodo
}
func (st *milestoneStore) GetMany(ctx context.Context, ids []int64) ([]domain.Milestone, error) {
	return nil, nil
}
func (st *milestoneStore) IDsByTitle(ctx context.Context, projectID int64, title string) ([]int64, error) {
	return nil, nil
}
func (st *milestoneStore) Update(ctx context.Context, projectID, id int64, fn func(m *domain.Milestone) error) (*domain.Milestone, error) {
	return nil, errTodo
}
func (st *milestoneStore) Delete(ctx context.Context, projectID, id int64) error { return errTodo }
func (st *milestoneStore) List(ctx context.Context, f domain.MilestoneFilter) ([]domain.Milestone, int, error) {
	return nil, 0, errTodo
}

var _ ports.MilestoneStore = (*milestoneStore)(nil)
