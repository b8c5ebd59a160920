package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// subscriptionRow is a row of subscriptions: one explicit choice of a user
// about a subject. subject_id has no foreign key (it points at a table
// chosen by subject_type).
type subscriptionRow struct {
	bun.BaseModel `bun:"table:subscriptions,alias:sub"`

	SubjectType string `bun:"subject_type,pk"`
	SubjectID   int64  `bun:"subject_id,pk"`
	UserID      int64  `bun:"user_id,pk"`
	Subscribed  bool   `bun:"subscribed"`
}

type subscriptionStore struct{ s *Store }

// Set upserts the choice in one statement. An unknown user is
// core.ErrNotFound.
func (st *subscriptionStore) Set(ctx context.Context, target domain.Subject, userID int64, subscribed bool) error {
	row := &subscriptionRow{SubjectType: target.Type, SubjectID: target.ID, UserID: userID, Subscribed: subscribed}
	err := st.s.guarded(ctx, func(ctx context.Context, db bun.IDB) error {
		_, err := db.NewInsert().Model(row).
			On("CONFLICT (subject_type, subject_id, user_id) DO UPDATE").
			Set("subscribed = EXCLUDED.subscribed").Exec(ctx)
		return writeErr(err, "User")
	})
	if err != nil {
		return fmt.Errorf("bunstore: subscribe user %d to %s %d: %w", userID, target.Type, target.ID, err)
	}
	return nil
}

func (st *subscriptionStore) Get(ctx context.Context, target domain.Subject, userID int64) (*bool, error) {
	var subscribed bool
	err := st.s.Conn(ctx).NewSelect().Model((*subscriptionRow)(nil)).Column("sub.subscribed").
		Where("sub.subject_type = ? AND sub.subject_id = ? AND sub.user_id = ?", target.Type, target.ID, userID).
		Scan(ctx, &subscribed)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bunstore: subscription of user %d to %s %d: %w", userID, target.Type, target.ID, err)
	}
	return &subscribed, nil
}

func (st *subscriptionStore) OfUser(ctx context.Context, userID int64, targetType string, ids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []subscriptionRow
	err := st.s.Conn(ctx).NewSelect().Model(&rows).
		Where("sub.user_id = ? AND sub.subject_type = ? AND sub.subject_id IN (?)", userID, targetType, bun.List(dedupeIDs(ids))).
		Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("bunstore: subscriptions of user %d to %d %s: %w", userID, len(ids), targetType, err)
	}
	for _, r := range rows {
		out[r.SubjectID] = r.Subscribed
	}
	return out, nil
}

func (st *subscriptionStore) DeleteTarget(ctx context.Context, target domain.Subject) error {
	if _, err := st.s.Conn(ctx).NewDelete().Model((*subscriptionRow)(nil)).
		Where("subject_type = ? AND subject_id = ?", target.Type, target.ID).Exec(ctx); err != nil {
		return fmt.Errorf("bunstore: delete subscriptions to %s %d: %w", target.Type, target.ID, err)
	}
	return nil
}

var _ ports.SubscriptionStore = (*subscriptionStore)(nil)
