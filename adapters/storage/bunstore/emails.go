package bunstore

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// emailRow is a row of emails: every address of every user, the primary one
// flagged, so one unique index on lower(email) enforces uniqueness across
// users and across primary and secondary addresses, even between concurrent
// writers. The EmailStore only ever sees secondary rows.
type emailRow struct {
	bun.BaseModel `bun:"table:emails"`

	ID        int64     `bun:"id,pk,autoincrement"`
	UserID    int64     `bun:"user_id"`
	Email     string    `bun:"email"`
	Primary   bool      `bun:"is_primary"`
	CreatedAt time.Time `bun:"created_at"`
}

func (r *emailRow) domain() domain.Email {
	return domain.Email{ID: r.ID, UserID: r.UserID, Email: r.Email, CreatedAt: r.CreatedAt.UTC()}
}

var emailTable = tableOf("Email", (*emailRow).domain)

type emailStore struct{ s *Store }

func (st *emailStore) Create(ctx context.Context, e *domain.Email) error {
	row := &emailRow{UserID: e.UserID, Email: e.Email, CreatedAt: orNow(e.CreatedAt)}
	if err := st.s.insert(ctx, row, parentErr("User"), "id"); err != nil {
		return fmt.Errorf("bunstore: create email for user %d: %w", e.UserID, err)
	}
	*e = row.domain()
	return nil
}

func (st *emailStore) Get(ctx context.Context, id int64) (*domain.Email, error) {
	e, err := emailTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("id = ? AND is_primary = ?", id, false))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get email %d: %w", id, err)
	}
	return e, nil
}

func (st *emailStore) ListByUser(ctx context.Context, userID int64, p domain.Page) ([]domain.Email, int, error) {
	q := st.s.Conn(ctx).NewSelect().Where("user_id = ? AND is_primary = ?", userID, false).Order("id")
	out, n, err := emailTable.page(ctx, q, p)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list emails of user %d: %w", userID, err)
	}
	return out, n, nil
}

func (st *emailStore) Delete(ctx context.Context, userID, id int64) error {
	err := emailTable.deleteOne(ctx, st.s.Conn(ctx), "id = ? AND user_id = ? AND is_primary = ?", id, userID, false)
	if err != nil {
		return fmt.Errorf("bunstore: delete email %d of user %d: %w", id, userID, err)
	}
	return nil
}

var _ ports.EmailStore = (*emailStore)(nil)
