package ports

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

// TodoStore keeps users' to-do items.
type TodoStore interface {
	// CreatePending inserts t as pending unless the user already has a
	// pending todo with the same target and action: then it returns that
	// one and false.
	CreatePending(ctx context.Context, t *domain.Todo) (*domain.Todo, bool, error)
	// Get reads one todo of a user (core.ErrNotFound, also for another
	// user's todo).
	Get(ctx context.Context, userID, id int64) (*domain.Todo, error)
	// List returns one page of a user's todos, newest first, and the total.
	List(ctx context.Context, f domain.TodoFilter) ([]domain.Todo, int, error)
	// MarkDone marks one of the user's todos done and returns it
	// (core.ErrNotFound).
	MarkDone(ctx context.Context, userID, id int64) (*domain.Todo, error)
	// MarkAllDone marks every pending todo of the user done; it returns how many.
	MarkAllDone(ctx context.Context, userID int64) (int, error)
	// MarkTargetDone marks the user's pending todos on a target done
	// (userID 0: everyone's); it returns how many.
	MarkTargetDone(ctx context.Context, userID int64, target domain.Subject) (int, error)
	// DeleteTarget removes every todo about a target.
	DeleteTarget(ctx context.Context, target domain.Subject) error
}
