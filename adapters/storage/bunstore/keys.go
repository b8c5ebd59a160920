package bunstore

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

type keyRow struct {
	bun.BaseModel `bun:"table:ssh_keys"`

	ID          int64     `bun:"id,pk,autoincrement"`
	UserID      int64     `bun:"user_id"`
	Title       string    `bun:"title"`
	Key         string    `bun:"key"`
	Fingerprint string    `bun:"fingerprint"`
	CreatedAt   time.Time `bun:"created_at"`
}

func (r *keyRow) domain() domain.SSHKey {
	return domain.SSHKey{
		ID:          r.ID,
		UserID:      r.UserID,
		Title:       r.Title,
		Key:         r.Key,
		Fingerprint: r.Fingerprint,
		CreatedAt:   r.CreatedAt.UTC(),
	}
}

var keyTable = tableOf("Key", (*keyRow).domain)

type keyStore struct{ s *Store }

func (st *keyStore) Create(ctx context.Context, k *domain.SSHKey) error {
	row := &keyRow{
		UserID:      k.UserID,
		Title:       k.Title,
		Key:         k.Key,
		Fingerprint: k.Fingerprint,
		CreatedAt:   orNow(k.CreatedAt),
	}
	// The key takes its fingerprint in key_fingerprints too, where deploy
	// keys take theirs: the unique index there keeps one fingerprint to
	// one key of either kind.
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		if err := st.s.insert(ctx, row, parentErr("User"), "id"); err != nil {
			return err
		}
		return st.s.insert(ctx, &fingerprintRow{Fingerprint: row.Fingerprint, SSHKeyID: &row.ID}, parentErr("Key"))
	})
	if err != nil {
		return fmt.Errorf("bunstore: create key for user %d: %w", k.UserID, err)
	}
	*k = row.domain()
	return nil
}

func (st *keyStore) Get(ctx context.Context, id int64) (*domain.SSHKey, error) {
	k, err := keyTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("id = ?", id))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get key %d: %w", id, err)
	}
	return k, nil
}

func (st *keyStore) ListByUser(ctx context.Context, userID int64, p domain.Page) ([]domain.SSHKey, int, error) {
	keys, n, err := keyTable.page(ctx, st.s.Conn(ctx).NewSelect().Where("user_id = ?", userID).Order("id"), p)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list keys of user %d: %w", userID, err)
	}
	return keys, n, nil
}

func (st *keyStore) Delete(ctx context.Context, userID, id int64) error {
	if err := keyTable.deleteOne(ctx, st.s.Conn(ctx), "id = ? AND user_id = ?", id, userID); err != nil {
		return fmt.Errorf("bunstore: delete key %d of user %d: %w", id, userID, err)
	}
	return nil
}

func (st *keyStore) ByFingerprint(ctx context.Context, fingerprint string) (*domain.SSHKey, error) {
	k, err := keyTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("fingerprint = ?", fingerprint))
	if err != nil {
		return nil, fmt.Errorf("bunstore: key with fingerprint %s: %w", fingerprint, err)
	}
	return k, nil
}

var _ ports.KeyStore = (*keyStore)(nil)
