package bunstore

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// TEMPORARY stubs until the store is written.
type issueStore struct{ s *Store }

func (st *issueStore) Create(ctx context.Context, i *domain.Issue) error { return errTodo }
func (st *issueStore) Get(ctx context.Context, projectID, iid int64) (*domain.Issue, error) {
	return nil, errTodo
}
func (st *issueStore) GetMany(ctx context.Context, ids []int64) ([]domain.Issue, error) {
	return nil, errTodo
}
func (st *issueStore) ByIIDs(ctx context.Context, projectID int64, iids []int64) ([]domain.Issue, error) {
	return nil, nil
}
func (st *issueStore) Update(ctx context.Context, projectID, iid int64, fn func(i *domain.Issue) error) (*domain.Issue, error) {
	return nil, errTodo
}
func (st *issueStore) Delete(ctx context.Context, projectID, iid int64) error { return errTodo }
func (st *issueStore) List(ctx context.Context, f domain.IssueFilter) ([]domain.Issue, int, error) {
	return nil, 0, errTodo
}
func (st *issueStore) CountOpen(ctx context.Context, projectIDs []int64, viewer domain.IssueViewer) (map[int64]int, error) {
	return map[int64]int{}, nil
}

var _ ports.IssueStore = (*issueStore)(nil)
