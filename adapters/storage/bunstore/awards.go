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

var awardTable = tableOf("Award Emoji", (*awardRow).domain)

type awardStore struct{ s *Store }

// errAwardTaken is the conflict of a second identical award.
func errAwardTaken() error {
	return &core.Error{Kind: core.ErrConflict, Msg: "Name has already been taken",
		Fields: map[string][]string{"name": {"has already been taken"}}}
}

// Create inserts a; a zero CreatedAt is now and a zero UpdatedAt is
// CreatedAt. The same user, awardable and name again is core.ErrConflict
// (award_emoji_user_awardable_name_key); an unknown user core.ErrNotFound.
func (st *awardStore) Create(ctx context.Context, a *domain.Award) error {
	row := &awardRow{Name: a.Name, UserID: a.UserID, AwardableType: a.AwardableType, AwardableID: a.AwardableID}
	row.CreatedAt, row.UpdatedAt = created(a.CreatedAt, a.UpdatedAt)
	if err := st.s.insert(ctx, row, takenErr("", errAwardTaken, "User"), "id"); err != nil {
		return fmt.Errorf("bunstore: award %q to %s %d: %w", a.Name, a.AwardableType, a.AwardableID, err)
	}
	*a = row.domain()
	return nil
}

// List orders by creation, ID breaking ties (award_emoji_awardable_idx).
func (st *awardStore) List(ctx context.Context, awardableType string, awardableID int64) ([]domain.Award, error) {
	out, err := awardTable.list(ctx, st.s.Conn(ctx).NewSelect().
		Where("a.awardable_type = ? AND a.awardable_id = ?", awardableType, awardableID).
		Order("a.created_at", "a.id"))
	if err != nil {
		return nil, fmt.Errorf("bunstore: awards of %s %d: %w", awardableType, awardableID, err)
	}
	return out, nil
}

func (st *awardStore) Delete(ctx context.Context, id int64) error {
	if err := awardTable.deleteOne(ctx, st.s.Conn(ctx), "id = ?", id); err != nil {
		return fmt.Errorf("bunstore: delete award %d: %w", id, err)
	}
	return nil
}

var _ ports.AwardStore = (*awardStore)(nil)
