package bunstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// tokenRow is a row of tokens. Scopes are one comma-joined column: they are
// only ever read with the token, never queried.
type tokenRow struct {
	bun.BaseModel `bun:"table:tokens"`

	ID         int64      `bun:"id,pk,autoincrement"`
	UserID     int64      `bun:"user_id"`
	Name       string     `bun:"name"`
	Digest     string     `bun:"digest"`
	Kind       string     `bun:"kind"`
	Scopes     string     `bun:"scopes"`
	Revoked    bool       `bun:"revoked"`
	ExpiresAt  *time.Time `bun:"expires_at"`
	CreatedAt  time.Time  `bun:"created_at"`
	LastUsedAt *time.Time `bun:"last_used_at"`
}

func (r *tokenRow) domain() domain.Token {
	var scopes []string
	if r.Scopes != "" {
		scopes = strings.Split(r.Scopes, ",")
	}
	return domain.Token{
		ID:         r.ID,
		UserID:     r.UserID,
		Name:       r.Name,
		Digest:     r.Digest,
		Kind:       domain.TokenKind(r.Kind),
		Scopes:     scopes,
		Revoked:    r.Revoked,
		ExpiresAt:  utcPtr(r.ExpiresAt),
		CreatedAt:  r.CreatedAt.UTC(),
		LastUsedAt: utcPtr(r.LastUsedAt),
	}
}

var tokenTable = tableOf("Token", (*tokenRow).domain)

type tokenStore struct{ s *Store }

// Create stores the token; ExpiresAt is kept as a date (UTC midnight).
func (st *tokenStore) Create(ctx context.Context, t *domain.Token) error {
	row := &tokenRow{
		UserID:     t.UserID,
		Name:       t.Name,
		Digest:     t.Digest,
		Kind:       string(t.Kind),
		Scopes:     strings.Join(t.Scopes, ","),
		Revoked:    t.Revoked,
		ExpiresAt:  datePtr(t.ExpiresAt),
		CreatedAt:  orNow(t.CreatedAt),
		LastUsedAt: tsPtr(t.LastUsedAt),
	}
	if err := st.s.insert(ctx, row, parentErr("User"), "id"); err != nil {
		return fmt.Errorf("bunstore: create token for user %d: %w", t.UserID, err)
	}
	*t = row.domain()
	return nil
}

func (st *tokenStore) Get(ctx context.Context, id int64) (*domain.Token, error) {
	return st.getWhere(ctx, fmt.Sprintf("get token %d", id), "id = ?", id)
}

func (st *tokenStore) GetByDigest(ctx context.Context, digest string) (*domain.Token, error) {
	return st.getWhere(ctx, "get token by digest", "digest = ?", digest)
}

func (st *tokenStore) getWhere(ctx context.Context, op, where string, arg any) (*domain.Token, error) {
	t, err := tokenTable.get(ctx, st.s.Conn(ctx).NewSelect().Where(where, arg))
	if err != nil {
		return nil, fmt.Errorf("bunstore: %s: %w", op, err)
	}
	return t, nil
}

// List filters by user, kinds and state. Active means not revoked and not
// expired at f.Now (expires_at > now, matching domain.Token.Active);
// inactive is the complement. A zero f.Now means the current time.
func (st *tokenStore) List(ctx context.Context, f ports.TokenFilter) ([]domain.Token, int, error) {
	q := st.s.Conn(ctx).NewSelect().Order("id")
	q = whereSet(q, "user_id = ?", f.UserID)
	if len(f.Kinds) > 0 {
		kinds := make([]string, len(f.Kinds))
		for i, k := range f.Kinds {
			kinds[i] = string(k)
		}
		q = q.Where("kind IN (?)", bun.List(kinds))
	}
	at := f.Now
	if at.IsZero() {
		at = time.Now()
	}
	at = ts(at)
	switch f.State {
	case domain.TokensActive:
		q = q.Where("revoked = ? AND (expires_at IS NULL OR expires_at > ?)", false, at)
	case domain.TokensInactive:
		q = q.Where("(revoked = ? OR expires_at <= ?)", true, at)
	}
	out, n, err := tokenTable.page(ctx, q, f.Page)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list tokens: %w", err)
	}
	return out, n, nil
}

func (st *tokenStore) Revoke(ctx context.Context, id int64) error {
	res, err := st.s.Conn(ctx).NewUpdate().Model((*tokenRow)(nil)).
		Set("revoked = ?", true).Where("id = ?", id).Exec(ctx)
	if err == nil {
		err = mustAffect(res, "Token")
	}
	if err != nil {
		return fmt.Errorf("bunstore: revoke token %d: %w", id, err)
	}
	return nil
}

func (st *tokenStore) TouchLastUsed(ctx context.Context, id int64, at time.Time) error {
	res, err := st.s.Conn(ctx).NewUpdate().Model((*tokenRow)(nil)).
		Set("last_used_at = ?", ts(at)).Where("id = ?", id).Exec(ctx)
	if err == nil {
		err = mustAffect(res, "Token")
	}
	if err != nil {
		return fmt.Errorf("bunstore: touch token %d: %w", id, err)
	}
	return nil
}

// PruneSessions keeps the newest keep session tokens (by ID, which grows
// with creation) and deletes the rest, in one statement.
func (st *tokenStore) PruneSessions(ctx context.Context, userID int64, keep int) error {
	db := st.s.Conn(ctx)
	q := db.NewDelete().Model((*tokenRow)(nil)).
		Where("user_id = ? AND kind = ?", userID, string(domain.TokenSession))
	if keep > 0 {
		newest := db.NewSelect().Model((*tokenRow)(nil)).Column("id").
			Where("user_id = ? AND kind = ?", userID, string(domain.TokenSession)).
			OrderExpr("id DESC").Limit(int64(keep))
		q = q.Where("id NOT IN (?)", newest)
	}
	if _, err := q.Exec(ctx); err != nil {
		return fmt.Errorf("bunstore: prune sessions of user %d: %w", userID, err)
	}
	return nil
}

var _ ports.TokenStore = (*tokenStore)(nil)
