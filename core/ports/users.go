package ports

import (
	"context"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// UserStore keeps users and their primary email. Usernames and emails
// (primary and secondary, across all users) are unique case-insensitively.
//
// Every store returns times in UTC at microsecond precision; dates
// (User.LastActivityOn, Token.ExpiresAt) are stored as the UTC midnight of
// their UTC day. A zero CreatedAt (and UpdatedAt) on Create means now.
type UserStore interface {
	// Create inserts u and sets u.ID. A taken username or email is
	// core.ErrConflict with Fields {"username"|"email": ["has already been taken"]};
	// a taken external identity (Provider, ExternUID) likewise with "extern_uid".
	Create(ctx context.Context, u *domain.User) error
	// Get returns the user; core.ErrNotFound when absent.
	Get(ctx context.Context, id int64) (*domain.User, error)
	// GetByUsername matches case-insensitively; core.ErrNotFound when absent.
	GetByUsername(ctx context.Context, username string) (*domain.User, error)
	// GetByEmail matches a primary email case-insensitively; core.ErrNotFound when absent.
	GetByEmail(ctx context.Context, email string) (*domain.User, error)
	// GetMany returns the users with these IDs in any order; missing IDs are skipped.
	GetMany(ctx context.Context, ids []int64) ([]domain.User, error)
	// Update applies fn to the current row under a lock and saves the result.
	// core.ErrNotFound when absent; uniqueness as in Create; fn's error is returned as is.
	// UpdatedAt becomes now unless fn sets it. Setting Email to one of the
	// user's own secondary addresses promotes it (the secondary entry goes).
	Update(ctx context.Context, id int64, fn func(u *domain.User) error) (*domain.User, error)
	// Delete removes the user with keys, emails and tokens; core.ErrNotFound when absent.
	// Events stay: the feed is history.
	Delete(ctx context.Context, id int64) error
	// List returns one page ordered by ID ascending and the total count.
	List(ctx context.Context, f domain.UserFilter) ([]domain.User, int, error)
	// Count returns how many users exist.
	Count(ctx context.Context) (int, error)
	// TouchActivity sets last_activity_on to day when it is earlier (or unset).
	// core.ErrNotFound when the user is absent.
	TouchActivity(ctx context.Context, id int64, day time.Time) error
	// ListActivity returns users active on or after from, oldest activity first.
	// from is a date: its UTC day counts whole.
	ListActivity(ctx context.Context, from time.Time, p domain.Page) ([]domain.User, int, error)
}

// KeyStore keeps SSH keys. Fingerprints are unique across all users.
type KeyStore interface {
	// Create inserts k and sets k.ID; a taken fingerprint is core.ErrConflict
	// with Fields {"fingerprint": ["has already been taken"]}; an unknown
	// user is core.ErrNotFound.
	Create(ctx context.Context, k *domain.SSHKey) error
	// Get returns the key; core.ErrNotFound when absent.
	Get(ctx context.Context, id int64) (*domain.SSHKey, error)
	// ListByUser returns the user's keys ordered by ID, and the total.
	ListByUser(ctx context.Context, userID int64, p domain.Page) ([]domain.SSHKey, int, error)
	// Delete removes the user's key; core.ErrNotFound when it is not theirs or absent.
	Delete(ctx context.Context, userID, id int64) error
	// ByFingerprint returns the user key with this fingerprint (GitLab's
	// MD5 form); core.ErrNotFound when none (deploy keys are not user keys).
	ByFingerprint(ctx context.Context, fingerprint string) (*domain.SSHKey, error)
}

// EmailStore keeps secondary emails, unique against every address of every user.
type EmailStore interface {
	// Create inserts e and sets e.ID; a taken address is core.ErrConflict with
	// Fields {"email": ["has already been taken"]}; an unknown user is core.ErrNotFound.
	Create(ctx context.Context, e *domain.Email) error
	// Get returns the email; core.ErrNotFound when absent.
	Get(ctx context.Context, id int64) (*domain.Email, error)
	// ListByUser returns the user's secondary emails ordered by ID, and the total.
	ListByUser(ctx context.Context, userID int64, p domain.Page) ([]domain.Email, int, error)
	// Delete removes the user's email; core.ErrNotFound when it is not theirs or absent.
	Delete(ctx context.Context, userID, id int64) error
}
