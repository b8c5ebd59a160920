package bunstore

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// awardRow is a row of award_emoji. awardable_id has no foreign key: it
// points at the table awardable_type names.
type awardRow struct {
	bun.BaseModel `bun:"table:award_emoji,alias:a"`

	ID            int64     `bun:"id,pk,autoincrement"`
	Name          string    `bun:"name"`
	UserID        int64     `bun:"user_id"`
	AwardableType string    `bun:"awardable_type"`
	AwardableID   int64     `bun:"awardable_id"`
	CreatedAt     time.Time `bun:"created_at"`
	UpdatedAt     time.Time `bun:"updated_at"`
}

func (r *awardRow) domain() domain.Award {
	return domain.Award{
		ID:            r.ID,
		Name:          r.Name,
		UserID:        r.UserID,
		AwardableType: r.AwardableType,
		AwardableID:   r.AwardableID,
		CreatedAt:     r.CreatedAt.UTC(),
		UpdatedAt:     r.UpdatedAt.UTC(),
	}
}

type awardStore struct{ s *Store }

// Create inserts a; a zero CreatedAt is now and a zero UpdatedAt is
// CreatedAt. The same user, awardable and name again is core.ErrConflict
// (award_emoji_user_awardable_name_key); an unknown user core.ErrNotFound.
func (st *awardStore) Create(ctx context.Context, a *domain.Award) error {
	row := &awardRow{
		Name:          a.Name,
		UserID:        a.UserID,
		AwardableType: a.AwardableType,
		AwardableID:   a.AwardableID,
		CreatedAt:     orNow(a.CreatedAt),
	}
	row.UpdatedAt = row.CreatedAt
	if !a.UpdatedAt.IsZero() {
		row.UpdatedAt = ts(a.UpdatedAt)
	}
	err := st.s.guarded(ctx, func(ctx context.Context, db bun.IDB) error {
		_, err := db.NewInsert().Model(row).Returning("id").Exec(ctx)
		return err
	})
	if _, dup := uniqueViolation(err); dup {
		err = &core.Error{Kind: core.ErrConflict, Msg: "Name has already been taken",
			Fields: map[string][]string{"name": {"has already been taken"}}}
	} else {
		err = writeErr(err, "User")
	}
	if err != nil {
		return fmt.Errorf("bunstore: award %q to %s %d: %w", a.Name, a.AwardableType, a.AwardableID, err)
	}
	*a = row.domain()
	return nil
}

// List orders by creation, ID breaking ties (award_emoji_awardable_idx).
func (st *awardStore) List(ctx context.Context, awardableType string, awardableID int64) ([]domain.Award, error) {
	rows := []awardRow{}
	err := st.s.Conn(ctx).NewSelect().Model(&rows).
		Where("a.awardable_type = ? AND a.awardable_id = ?", awardableType, awardableID).
		Order("a.created_at", "a.id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("bunstore: awards of %s %d: %w", awardableType, awardableID, err)
	}
	out := make([]domain.Award, len(rows))
	for i := range rows {
		out[i] = rows[i].domain()
	}
	return out, nil
}

func (st *awardStore) Delete(ctx context.Context, id int64) error {
	res, err := st.s.Conn(ctx).NewDelete().Model((*awardRow)(nil)).Where("id = ?", id).Exec(ctx)
	if err == nil {
		err = mustAffect(res, "Award Emoji")
	}
	if err != nil {
		return fmt.Errorf("bunstore: delete award %d: %w", id, err)
	}
	return nil
}

var _ ports.AwardStore = (*awardStore)(nil)
