package bunstore

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// TEMPORARY stubs until the store is written.
type awardStore struct{ s *Store }

func (st *awardStore) Create(ctx context.Context, a *domain.Award) error { return errTodo }
func (st *awardStore) List(ctx context.Context, awardableType string, awardableID int64) ([]domain.Award, error) {
	return nil, errTodo
}
func (st *awardStore) Delete(ctx context.Context, id int64) error { return errTodo }

var _ ports.AwardStore = (*awardStore)(nil)
