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

type emailStore struct{ s *Store }

func (st *emailStore) Create(ctx context.Context, e *domain.Email) error {
	row := &emailRow{UserID: e.UserID, Email: e.Email, CreatedAt: orNow(e.CreatedAt)}
	err := st.s.guarded(ctx, func(ctx context.Context, db bun.IDB) error {
		_, err := db.NewInsert().Model(row).Returning("id").Exec(ctx)
		return writeErr(err, "User")
	})
	if err != nil {
		return fmt.Errorf("bunstore: create email for user %d: %w", e.UserID, err)
	}
	*e = row.domain()
	return nil
}

func (st *emailStore) Get(ctx context.Context, id int64) (*domain.Email, error) {
	row := new(emailRow)
	err := st.s.Conn(ctx).NewSelect().Model(row).Where("id = ? AND is_primary = ?", id, false).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("bunstore: get email %d: %w", id, readErr(err, "Email"))
	}
	e := row.domain()
	return &e, nil
}

func (st *emailStore) ListByUser(ctx context.Context, userID int64, p domain.Page) ([]domain.Email, int, error) {
	var rows []emailRow
	q := st.s.Conn(ctx).NewSelect().Model(&rows).
		Where("user_id = ? AND is_primary = ?", userID, false).Order("id")
	n, err := page(ctx, q, p)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list emails of user %d: %w", userID, err)
	}
	out := make([]domain.Email, len(rows))
	for i := range rows {
		out[i] = rows[i].domain()
	}
	return out, n, nil
}

func (st *emailStore) Delete(ctx context.Context, userID, id int64) error {
	res, err := st.s.Conn(ctx).NewDelete().Model((*emailRow)(nil)).
		Where("id = ? AND user_id = ? AND is_primary = ?", id, userID, false).Exec(ctx)
	if err == nil {
		err = mustAffect(res, "Email")
	}
	if err != nil {
		return fmt.Errorf("bunstore: delete email %d of user %d: %w", id, userID, err)
	}
	return nil
}

var _ ports.EmailStore = (*emailStore)(nil)
