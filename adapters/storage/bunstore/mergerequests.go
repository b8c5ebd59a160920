package bunstore

import (
	"context"
	"errors"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// TEMPORARY: stubs so the contracts compile while the stores are written.
var errTodo = errors.New("bunstore: not implemented yet")

type mergeRequestStore struct{ s *Store }

func (st *mergeRequestStore) Create(ctx context.Context, m *domain.MergeRequest) error {
	return errTodo
}
func (st *mergeRequestStore) Get(ctx context.Context, projectID, iid int64) (*domain.MergeRequest, error) {
	return nil, errTodo
}
func (st *mergeRequestStore) GetByID(ctx context.Context, id int64) (*domain.MergeRequest, error) {
	return nil, errTodo
}
func (st *mergeRequestStore) GetMany(ctx context.Context, ids []int64) ([]domain.MergeRequest, error) {
	return nil, errTodo
}
func (st *mergeRequestStore) Update(ctx context.Context, projectID, iid int64, fn func(m *domain.MergeRequest) error) (*domain.MergeRequest, error) {
	return nil, errTodo
}
func (st *mergeRequestStore) Delete(ctx context.Context, projectID, iid int64) error { return errTodo }
func (st *mergeRequestStore) List(ctx context.Context, f domain.MergeRequestFilter) ([]domain.MergeRequest, int, error) {
	return nil, 0, errTodo
}
func (st *mergeRequestStore) OpenOnBranch(ctx context.Context, projectID int64, branch string) ([]domain.MergeRequest, error) {
	return nil, errTodo
}
func (st *mergeRequestStore) Locked(ctx context.Context, before time.Time) ([]domain.MergeRequest, error) {
	return nil, errTodo
}

type noteStore struct{ s *Store }

func (st *noteStore) Create(ctx context.Context, n *domain.Note) error        { return errTodo }
func (st *noteStore) Get(ctx context.Context, id int64) (*domain.Note, error) { return nil, errTodo }
func (st *noteStore) List(ctx context.Context, t string, id int64, p domain.Page) ([]domain.Note, int, error) {
	return nil, 0, errTodo
}
func (st *noteStore) Update(ctx context.Context, id int64, fn func(n *domain.Note) error) (*domain.Note, error) {
	return nil, errTodo
}
func (st *noteStore) Delete(ctx context.Context, id int64) error { return errTodo }
func (st *noteStore) CountUserNotes(ctx context.Context, t string, ids []int64) (map[int64]int, error) {
	return nil, errTodo
}

type todoStore struct{ s *Store }

func (st *todoStore) CreatePending(ctx context.Context, t *domain.Todo) (*domain.Todo, bool, error) {
	return nil, false, errTodo
}
func (st *todoStore) Get(ctx context.Context, userID, id int64) (*domain.Todo, error) {
	return nil, errTodo
}
func (st *todoStore) List(ctx context.Context, f domain.TodoFilter) ([]domain.Todo, int, error) {
	return nil, 0, errTodo
}
func (st *todoStore) MarkDone(ctx context.Context, userID, id int64) (*domain.Todo, error) {
	return nil, errTodo
}
func (st *todoStore) MarkAllDone(ctx context.Context, userID int64) (int, error) { return 0, errTodo }
func (st *todoStore) MarkTargetDone(ctx context.Context, userID int64, target domain.Subject) (int, error) {
	return 0, errTodo
}
func (st *todoStore) DeleteTarget(ctx context.Context, target domain.Subject) error { return errTodo }

type subscriptionStore struct{ s *Store }

func (st *subscriptionStore) Set(ctx context.Context, target domain.Subject, userID int64, subscribed bool) error {
	return errTodo
}
func (st *subscriptionStore) Get(ctx context.Context, target domain.Subject, userID int64) (*bool, error) {
	return nil, errTodo
}
func (st *subscriptionStore) OfUser(ctx context.Context, userID int64, targetType string, ids []int64) (map[int64]bool, error) {
	return nil, errTodo
}
func (st *subscriptionStore) DeleteTarget(ctx context.Context, target domain.Subject) error {
	return errTodo
}

var (
	_ ports.MergeRequestStore = (*mergeRequestStore)(nil)
	_ ports.NoteStore         = (*noteStore)(nil)
	_ ports.TodoStore         = (*todoStore)(nil)
	_ ports.SubscriptionStore = (*subscriptionStore)(nil)
)
