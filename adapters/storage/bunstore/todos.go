package bunstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// todoRow is a row of todos. author_id has no foreign key: the todo stays
// when whoever caused it leaves.
type todoRow struct {
	bun.BaseModel `bun:"table:todos,alias:td"`

	ID         int64     `bun:"id,pk,autoincrement"`
	UserID     int64     `bun:"user_id"`
	ProjectID  int64     `bun:"project_id"`
	AuthorID   int64     `bun:"author_id"`
	TargetType string    `bun:"target_type"`
	TargetID   int64     `bun:"target_id"`
	Action     string    `bun:"action"`
	State      string    `bun:"state"`
	Body       string    `bun:"body"`
	CreatedAt  time.Time `bun:"created_at"`
	UpdatedAt  time.Time `bun:"updated_at"`
}

func (r *todoRow) domain() domain.Todo {
	return domain.Todo{
		ID:         r.ID,
		UserID:     r.UserID,
		ProjectID:  r.ProjectID,
		AuthorID:   r.AuthorID,
		TargetType: r.TargetType,
		TargetID:   r.TargetID,
		Action:     r.Action,
		State:      r.State,
		Body:       r.Body,
		CreatedAt:  r.CreatedAt.UTC(),
		UpdatedAt:  r.UpdatedAt.UTC(),
	}
}

var todoTable = tableOf("Todo", (*todoRow).domain)

type todoStore struct{ s *Store }

// createAttempts bounds CreatePending's retries: each one only repeats when
// the pending todo it collided with was marked done in between.
const createAttempts = 5

// CreatePending inserts with ON CONFLICT DO NOTHING against todos_pending_key
// (on Postgres a racing insert waits for the other transaction, then does
// nothing), then reads the pending todo that won. Zero times mean now. An
// unknown user or project is core.ErrNotFound.
func (st *todoStore) CreatePending(ctx context.Context, t *domain.Todo) (*domain.Todo, bool, error) {
	row := &todoRow{
		UserID:     t.UserID,
		ProjectID:  t.ProjectID,
		AuthorID:   t.AuthorID,
		TargetType: t.TargetType,
		TargetID:   t.TargetID,
		Action:     t.Action,
		State:      domain.TodoPending,
		Body:       t.Body,
	}
	row.CreatedAt, row.UpdatedAt = created(t.CreatedAt, t.UpdatedAt)
	for range createAttempts {
		created, err := st.insertPending(ctx, row)
		if err != nil {
			return nil, false, fmt.Errorf("bunstore: create todo for user %d: %w", t.UserID, err)
		}
		if created {
			out := row.domain()
			return &out, true, nil
		}
		existing, err := todoTable.get(ctx, st.s.Conn(ctx).NewSelect().
			Where("td.user_id = ? AND td.target_type = ? AND td.target_id = ? AND td.action = ? AND td.state = ?",
				row.UserID, row.TargetType, row.TargetID, row.Action, domain.TodoPending))
		if errors.Is(err, core.ErrNotFound) {
			continue // marked done since: insert again
		}
		if err != nil {
			return nil, false, fmt.Errorf("bunstore: read pending todo of user %d: %w", t.UserID, err)
		}
		return existing, false, nil
	}
	return nil, false, fmt.Errorf("bunstore: create todo for user %d: pending todo kept changing", t.UserID)
}

// insertPending reports whether row was inserted.
func (st *todoStore) insertPending(ctx context.Context, row *todoRow) (bool, error) {
	var n int64
	err := st.s.guarded(ctx, func(ctx context.Context, db bun.IDB) error {
		res, err := db.NewInsert().Model(row).On("CONFLICT DO NOTHING").Returning("id").Exec(ctx)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if foreignKeyViolation(err) {
		var users int
		if qerr := st.s.Conn(ctx).NewSelect().Table("users").ColumnExpr("count(*)").Where("id = ?", row.UserID).Scan(ctx, &users); qerr == nil && users == 0 {
			return false, core.NotFound("User")
		}
		return false, core.NotFound("Project")
	}
	return n > 0, err
}

func (st *todoStore) Get(ctx context.Context, userID, id int64) (*domain.Todo, error) {
	t, err := todoTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("td.id = ? AND td.user_id = ?", id, userID))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get todo %d of user %d: %w", id, userID, err)
	}
	return t, nil
}

// List orders newest first, ID breaking ties; State "" means pending.
func (st *todoStore) List(ctx context.Context, f domain.TodoFilter) ([]domain.Todo, int, error) {
	state := f.State
	if state == "" {
		state = domain.TodoPending
	}
	q := st.s.Conn(ctx).NewSelect().Where("td.user_id = ? AND td.state = ?", f.UserID, state)
	q = whereSet(q, "td.action = ?", f.Action)
	q = whereSet(q, "td.author_id = ?", f.AuthorID)
	q = whereSet(q, "td.project_id = ?", f.ProjectID)
	q = whereSet(q, "td.target_type = ?", f.TargetType)
	q = q.OrderExpr("td.created_at DESC, td.id DESC")
	out, n, err := todoTable.page(ctx, q, f.Page)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list todos of user %d: %w", f.UserID, err)
	}
	return out, n, nil
}

// MarkDone is idempotent: a done todo is returned as it is.
func (st *todoStore) MarkDone(ctx context.Context, userID, id int64) (*domain.Todo, error) {
	var out *domain.Todo
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		if _, err := db.NewUpdate().Model((*todoRow)(nil)).
			Set("state = ?, updated_at = ?", domain.TodoDone, now()).
			Where("id = ? AND user_id = ? AND state = ?", id, userID, domain.TodoPending).Exec(ctx); err != nil {
			return err
		}
		var err error
		out, err = st.Get(ctx, userID, id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("bunstore: mark todo %d of user %d done: %w", id, userID, err)
	}
	return out, nil
}

func (st *todoStore) MarkAllDone(ctx context.Context, userID int64) (int, error) {
	n, err := st.markDone(ctx, func(q *bun.UpdateQuery) *bun.UpdateQuery {
		return q.Where("user_id = ?", userID)
	})
	if err != nil {
		return 0, fmt.Errorf("bunstore: mark todos of user %d done: %w", userID, err)
	}
	return n, nil
}

func (st *todoStore) MarkTargetDone(ctx context.Context, userID int64, target domain.Subject) (int, error) {
	n, err := st.markDone(ctx, func(q *bun.UpdateQuery) *bun.UpdateQuery {
		q = q.Where("target_type = ? AND target_id = ?", target.Type, target.ID)
		if userID != 0 {
			q = q.Where("user_id = ?", userID)
		}
		return q
	})
	if err != nil {
		return 0, fmt.Errorf("bunstore: mark todos on %s %d done: %w", target.Type, target.ID, err)
	}
	return n, nil
}

// markDone marks the pending todos where selects done in one statement and
// counts them.
func (st *todoStore) markDone(ctx context.Context, where func(*bun.UpdateQuery) *bun.UpdateQuery) (int, error) {
	q := st.s.Conn(ctx).NewUpdate().Model((*todoRow)(nil)).
		Set("state = ?, updated_at = ?", domain.TodoDone, now()).
		Where("state = ?", domain.TodoPending)
	res, err := where(q).Exec(ctx)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

func (st *todoStore) DeleteTarget(ctx context.Context, target domain.Subject) error {
	if _, err := st.s.Conn(ctx).NewDelete().Model((*todoRow)(nil)).
		Where("target_type = ? AND target_id = ?", target.Type, target.ID).Exec(ctx); err != nil {
		return fmt.Errorf("bunstore: delete todos on %s %d: %w", target.Type, target.ID, err)
	}
	return nil
}

var _ ports.TodoStore = (*todoStore)(nil)
