package domain

import "time"

// UserCreated is published when an account is created.
type UserCreated struct {
	User  User
	Actor int64 // who created it; equals User.ID for self sign-up
}

func (UserCreated) EventName() string { return "user.created" }

// UserStateChanged is published when an account is blocked or unblocked.
type UserStateChanged struct {
	User  User
	Actor int64
}

func (UserStateChanged) EventName() string { return "user.state_changed" }

// UserUpdated is published inside the transaction that changed a user, so
// that personal namespaces follow a new username.
type UserUpdated struct {
	Before User
	After  User
	Actor  int64
}

func (UserUpdated) EventName() string { return "user.updated" }

// UserDeleted is published inside the transaction that deletes a user, so
// that modules remove what only that user owned (personal namespace, projects).
type UserDeleted struct {
	User  User
	Actor int64
}

func (UserDeleted) EventName() string { return "user.deleted" }

// KeyAdded and KeyRemoved are published inside the transaction that adds
// or removes a user's SSH key (GitLab's key_create and key_destroy system
// hooks).
type KeyAdded struct{ Key SSHKey }

func (KeyAdded) EventName() string { return "key.added" }

type KeyRemoved struct{ Key SSHKey }

func (KeyRemoved) EventName() string { return "key.removed" }

// UserState is a user's account state.
type UserState string

const (
	UserActive  UserState = "active"
	UserBlocked UserState = "blocked"
	// UserLDAPBlocked is a block set by directory synchronization; the API
	// may not lift it (403).
	UserLDAPBlocked UserState = "ldap_blocked"
)

// User is an account. Email is the primary address; secondary addresses are Emails.
type User struct {
	ID             int64
	Username       string
	Name           string
	Email          string
	PasswordHash   string
	State          UserState
	Admin          bool
	Bio            string
	Location       string
	Skype          string
	Linkedin       string
	Twitter        string
	WebsiteURL     string
	Organization   string
	AvatarURL      string
	ProjectsLimit  int
	CanCreateGroup bool
	External       bool
	// ExternUID and Provider form the user's one external identity, if any.
	ExternUID        string
	Provider         string
	ColorSchemeID    int
	TwoFactorEnabled bool
	ConfirmedAt      *time.Time
	CreatedAt        time.Time
	UpdatedAt        time.Time
	LastSignInAt     *time.Time
	CurrentSignInAt  *time.Time
	// LastActivityOn is a date (UTC midnight); it moves at most once a day,
	// which is what keeps authenticated reads free of writes.
	LastActivityOn *time.Time
	// FailedAttempts counts consecutive failed sign-ins; LockedUntil is set
	// when they reach the limit.
	FailedAttempts int
	LockedUntil    *time.Time
	// PasswordExpiresAt forces a new password at the next sign-in when it is past.
	PasswordExpiresAt *time.Time
}

// Blocked reports whether the user may not authenticate.
func (u *User) Blocked() bool { return u.State != UserActive }

// SSHKey is a user's public key.
type SSHKey struct {
	ID          int64
	UserID      int64
	Title       string
	Key         string
	Fingerprint string
	CreatedAt   time.Time
}

// Email is a user's secondary email address.
type Email struct {
	ID        int64
	UserID    int64
	Email     string
	CreatedAt time.Time
}

// UserFilter selects users for listing. Zero values mean "no filter"; set
// fields combine with AND. CreatedBefore and CreatedAfter are inclusive, as
// GitLab's created_before/created_after are.
type UserFilter struct {
	Active        bool
	Blocked       bool   // blocked or ldap_blocked, as GitLab's blocked scope
	Search        string // matches username, name or email (case-insensitive, substring)
	Username      string // exact, case-insensitive
	ExternUID     string
	Provider      string
	External      bool
	CreatedBefore *time.Time
	CreatedAfter  *time.Time
	Page          Page
}
