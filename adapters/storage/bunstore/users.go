package bunstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// userRow is a row of users. The primary email is kept here (for listing and
// search) and, in the same transaction, as the is_primary row of emails,
// whose unique index makes every address unique across all users.
type userRow struct {
	bun.BaseModel `bun:"table:users"`

	ID                int64      `bun:"id,pk,autoincrement"`
	Username          string     `bun:"username"`
	Name              string     `bun:"name"`
	Email             string     `bun:"email"`
	PasswordHash      string     `bun:"password_hash"`
	State             string     `bun:"state"`
	Admin             bool       `bun:"admin"`
	Bio               string     `bun:"bio"`
	Location          string     `bun:"location"`
	Skype             string     `bun:"skype"`
	Linkedin          string     `bun:"linkedin"`
	Twitter           string     `bun:"twitter"`
	WebsiteURL        string     `bun:"website_url"`
	Organization      string     `bun:"organization"`
	AvatarURL         string     `bun:"avatar_url"`
	ProjectsLimit     int        `bun:"projects_limit"`
	CanCreateGroup    bool       `bun:"can_create_group"`
	External          bool       `bun:"external"`
	ExternUID         *string    `bun:"extern_uid"`
	Provider          *string    `bun:"provider"`
	ColorSchemeID     int        `bun:"color_scheme_id"`
	TwoFactorEnabled  bool       `bun:"two_factor_enabled"`
	ConfirmedAt       *time.Time `bun:"confirmed_at"`
	CreatedAt         time.Time  `bun:"created_at"`
	UpdatedAt         time.Time  `bun:"updated_at"`
	LastSignInAt      *time.Time `bun:"last_sign_in_at"`
	CurrentSignInAt   *time.Time `bun:"current_sign_in_at"`
	LastActivityOn    *time.Time `bun:"last_activity_on"`
	FailedAttempts    int        `bun:"failed_attempts"`
	LockedUntil       *time.Time `bun:"locked_until"`
	PasswordExpiresAt *time.Time `bun:"password_expires_at"`
}

func newUserRow(u *domain.User) *userRow {
	return &userRow{
		ID:                u.ID,
		Username:          u.Username,
		Name:              u.Name,
		Email:             u.Email,
		PasswordHash:      u.PasswordHash,
		State:             string(u.State),
		Admin:             u.Admin,
		Bio:               u.Bio,
		Location:          u.Location,
		Skype:             u.Skype,
		Linkedin:          u.Linkedin,
		Twitter:           u.Twitter,
		WebsiteURL:        u.WebsiteURL,
		Organization:      u.Organization,
		AvatarURL:         u.AvatarURL,
		ProjectsLimit:     u.ProjectsLimit,
		CanCreateGroup:    u.CanCreateGroup,
		External:          u.External,
		ExternUID:         nullString(u.ExternUID),
		Provider:          nullString(u.Provider),
		ColorSchemeID:     u.ColorSchemeID,
		TwoFactorEnabled:  u.TwoFactorEnabled,
		ConfirmedAt:       tsPtr(u.ConfirmedAt),
		CreatedAt:         ts(u.CreatedAt),
		UpdatedAt:         ts(u.UpdatedAt),
		LastSignInAt:      tsPtr(u.LastSignInAt),
		CurrentSignInAt:   tsPtr(u.CurrentSignInAt),
		LastActivityOn:    datePtr(u.LastActivityOn),
		FailedAttempts:    u.FailedAttempts,
		LockedUntil:       tsPtr(u.LockedUntil),
		PasswordExpiresAt: tsPtr(u.PasswordExpiresAt),
	}
}

func (r *userRow) domain() domain.User {
	return domain.User{
		ID:                r.ID,
		Username:          r.Username,
		Name:              r.Name,
		Email:             r.Email,
		PasswordHash:      r.PasswordHash,
		State:             domain.UserState(r.State),
		Admin:             r.Admin,
		Bio:               r.Bio,
		Location:          r.Location,
		Skype:             r.Skype,
		Linkedin:          r.Linkedin,
		Twitter:           r.Twitter,
		WebsiteURL:        r.WebsiteURL,
		Organization:      r.Organization,
		AvatarURL:         r.AvatarURL,
		ProjectsLimit:     r.ProjectsLimit,
		CanCreateGroup:    r.CanCreateGroup,
		External:          r.External,
		ExternUID:         deref(r.ExternUID),
		Provider:          deref(r.Provider),
		ColorSchemeID:     r.ColorSchemeID,
		TwoFactorEnabled:  r.TwoFactorEnabled,
		ConfirmedAt:       utcPtr(r.ConfirmedAt),
		CreatedAt:         r.CreatedAt.UTC(),
		UpdatedAt:         r.UpdatedAt.UTC(),
		LastSignInAt:      utcPtr(r.LastSignInAt),
		CurrentSignInAt:   utcPtr(r.CurrentSignInAt),
		LastActivityOn:    utcPtr(r.LastActivityOn),
		FailedAttempts:    r.FailedAttempts,
		LockedUntil:       utcPtr(r.LockedUntil),
		PasswordExpiresAt: utcPtr(r.PasswordExpiresAt),
	}
}

var userTable = tableOf("User", (*userRow).domain)

type userStore struct{ s *Store }

// Create inserts the user row and its primary email row in one transaction.
func (st *userStore) Create(ctx context.Context, u *domain.User) error {
	if u.State == "" {
		u.State = domain.UserActive
	}
	u.CreatedAt, u.UpdatedAt = created(u.CreatedAt, u.UpdatedAt)
	row := newUserRow(u)
	row.ID = 0
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		if _, err := db.NewInsert().Model(row).Returning("id").Exec(ctx); err != nil {
			return writeErr(err, "User")
		}
		return setPrimaryEmail(ctx, db, row.ID, "", row.Email, row.CreatedAt)
	})
	if err != nil {
		return fmt.Errorf("bunstore: create user %q: %w", u.Username, err)
	}
	*u = row.domain()
	return nil
}

func (st *userStore) Get(ctx context.Context, id int64) (*domain.User, error) {
	return st.getWhere(ctx, fmt.Sprintf("get user %d", id), "id = ?", id)
}

func (st *userStore) GetByUsername(ctx context.Context, username string) (*domain.User, error) {
	return st.getWhere(ctx, fmt.Sprintf("get user %q", username), "lower(username) = lower(?)", username)
}

func (st *userStore) GetByEmail(ctx context.Context, email string) (*domain.User, error) {
	return st.getWhere(ctx, "get user by email", "lower(email) = lower(?)", email)
}

func (st *userStore) getWhere(ctx context.Context, op, where string, arg any) (*domain.User, error) {
	if key, ok := arg.(string); ok && unstorable(key) {
		return nil, fmt.Errorf("bunstore: %s: %w", op, core.NotFound(userTable.what))
	}
	u, err := userTable.get(ctx, st.s.Conn(ctx).NewSelect().Where(where, arg).Limit(1))
	if err != nil {
		return nil, fmt.Errorf("bunstore: %s: %w", op, err)
	}
	return u, nil
}

func (st *userStore) GetMany(ctx context.Context, ids []int64) ([]domain.User, error) {
	out, err := userTable.byIDs(ctx, st.s.Conn(ctx), "id", ids)
	if err != nil {
		return nil, fmt.Errorf("bunstore: get %d users: %w", len(ids), err)
	}
	return out, nil
}

// Update reads the row (locked on Postgres), applies fn and writes every
// column back, keeping the primary email row in step.
func (st *userStore) Update(ctx context.Context, id int64, fn func(u *domain.User) error) (*domain.User, error) {
	save := func(ctx context.Context, db bun.IDB, old, u *domain.User) (*domain.User, error) {
		u.ID = id
		u.UpdatedAt = edited(u.UpdatedAt, old.UpdatedAt)
		row := newUserRow(u)
		out, err := userTable.save(ctx, db, row, parentErr("User"))
		if err == nil {
			err = setPrimaryEmail(ctx, db, id, old.Email, row.Email, row.UpdatedAt)
		}
		return out, err
	}
	return modify(ctx, st.s, userTable.locked(st.s, "id = ?", id), fn, save, func(err error) error {
		return fmt.Errorf("bunstore: update user %d: %w", id, err)
	})
}

// setPrimaryEmail moves the user's primary email row from old to email.
// Taking one of the user's own secondary addresses promotes it: the
// secondary row is removed so the unique index accepts the primary one.
func setPrimaryEmail(ctx context.Context, db bun.IDB, userID int64, old, email string, at time.Time) error {
	if old == email {
		return nil
	}
	var err error
	switch {
	case email == "":
		_, err = db.NewDelete().Model((*emailRow)(nil)).
			Where("user_id = ? AND is_primary = ?", userID, true).Exec(ctx)
	case old == "":
		_, err = db.NewInsert().Model(&emailRow{UserID: userID, Email: email, Primary: true, CreatedAt: at}).Exec(ctx)
	default:
		if !strings.EqualFold(old, email) {
			_, err = db.NewDelete().Model((*emailRow)(nil)).
				Where("user_id = ? AND is_primary = ? AND lower(email) = lower(?)", userID, false, email).Exec(ctx)
			if err != nil {
				return fmt.Errorf("promote secondary email: %w", err)
			}
		}
		_, err = db.NewUpdate().Model((*emailRow)(nil)).Set("email = ?", email).
			Where("user_id = ? AND is_primary = ?", userID, true).Exec(ctx)
	}
	if err != nil {
		return writeErr(err, "User")
	}
	return nil
}

// Delete removes the user in one transaction: the stars they gave are taken
// off the projects' star counts, their personal namespace goes with its
// projects and the memberships of those (as NamespaceStore.Delete does), and
// keys, emails, tokens, memberships and stars go by ON DELETE CASCADE.
// Events stay: the feed is history.
func (st *userStore) Delete(ctx context.Context, id int64) error {
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		if err := userTable.mustExist(ctx, db, id); err != nil {
			return err
		}
		if _, err := db.NewUpdate().Model((*projectRow)(nil)).Set("star_count = star_count - 1").
			Where("id IN (SELECT project_id FROM project_stars WHERE user_id = ?)", id).Exec(ctx); err != nil {
			return fmt.Errorf("take back stars: %w", err)
		}
		var nsIDs []int64
		if err := db.NewSelect().Model((*namespaceRow)(nil)).Column("id").Where("owner_id = ?", id).Scan(ctx, &nsIDs); err != nil {
			return fmt.Errorf("personal namespace: %w", err)
		}
		for _, ns := range nsIDs {
			if err := deleteNamespaceTree(ctx, db, ns); err != nil {
				return err
			}
		}
		_, err := db.NewDelete().Model((*userRow)(nil)).Where("id = ?", id).Exec(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("bunstore: delete user %d: %w", id, err)
	}
	return nil
}

func (st *userStore) List(ctx context.Context, f domain.UserFilter) ([]domain.User, int, error) {
	q := st.s.Conn(ctx).NewSelect().Order("id")
	if f.Active {
		q = q.Where("state = ?", string(domain.UserActive))
	}
	if f.Blocked {
		q = q.Where("state IN (?)", bun.List([]string{string(domain.UserBlocked), string(domain.UserLDAPBlocked)}))
	}
	q = whereContains(q, f.Search, "username", "name", "email")
	q = whereSet(q, "lower(username) = lower(?)", f.Username)
	q = whereSet(q, "extern_uid = ?", f.ExternUID)
	q = whereSet(q, "provider = ?", f.Provider)
	if f.External {
		q = q.Where("external = ?", true)
	}
	if f.CreatedBefore != nil {
		q = q.Where("created_at <= ?", ts(*f.CreatedBefore))
	}
	if f.CreatedAfter != nil {
		q = q.Where("created_at >= ?", ts(*f.CreatedAfter))
	}
	out, n, err := userTable.page(ctx, q, f.Page)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list users: %w", err)
	}
	return out, n, nil
}

func (st *userStore) Count(ctx context.Context) (int, error) {
	n, err := st.s.Conn(ctx).NewSelect().Model((*userRow)(nil)).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("bunstore: count users: %w", err)
	}
	return int(n), nil
}

// TouchActivity only moves last_activity_on forward, in one statement, so
// concurrent requests cannot move it back.
func (st *userStore) TouchActivity(ctx context.Context, id int64, day time.Time) error {
	d := date(day)
	db := st.s.Conn(ctx)
	q := db.NewUpdate().Set("last_activity_on = ?", d).Where("id = ? AND (last_activity_on IS NULL OR last_activity_on < ?)", id, d)
	if err := userTable.moveForward(ctx, db, q, id); err != nil {
		return fmt.Errorf("bunstore: touch activity of user %d: %w", id, err)
	}
	return nil
}

// ListActivity compares dates: from is taken as its UTC day, so a user
// active that day is included whatever time of day from names.
func (st *userStore) ListActivity(ctx context.Context, from time.Time, p domain.Page) ([]domain.User, int, error) {
	q := st.s.Conn(ctx).NewSelect().Where("last_activity_on >= ?", date(from)).Order("last_activity_on", "id")
	out, n, err := userTable.page(ctx, q, p)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list user activity: %w", err)
	}
	return out, n, nil
}

var _ ports.UserStore = (*userStore)(nil)
