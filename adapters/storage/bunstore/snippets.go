package bunstore

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// TEMPORARY stubs until the store is written.
type snippetStore struct{ s *Store }

func (st *snippetStore) Create(ctx context.Context, s *domain.Snippet) error { return errTodo }
func (st *snippetStore) Get(ctx context.Context, projectID, id int64) (*domain.Snippet, error) {
	return nil, errTodo
}
func (st *snippetStore) Update(ctx context.Context, projectID, id int64, fn func(s *domain.Snippet) error) (*domain.Snippet, error) {
	return nil, errTodo
}
func (st *snippetStore) Delete(ctx context.Context, projectID, id int64) error { return errTodo }
func (st *snippetStore) List(ctx context.Context, f domain.SnippetFilter) ([]domain.Snippet, int, error) {
	return nil, 0, errTodo
}

var _ ports.SnippetStore = (*snippetStore)(nil)
