package domain

import (
	"slices"
	"time"
)

// DeployKey is an SSH key that reads the repositories of the projects it
// is enabled for and, with CanPush, pushes to them (GitLab 9.x keeps
// can_push on the key, so it holds for every project of the key). Its
// fingerprint is unique among all keys: a user's key cannot also be a
// deploy key. One key may be enabled for many projects; it is deleted
// with the last of them.
type DeployKey struct {
	ID int64
	// UserID is who added the key (0 once that user is deleted); pushes
	// made with it are recorded as theirs.
	UserID      int64
	Title       string
	Key         string
	Fingerprint string
	CanPush     bool
	CreatedAt   time.Time
}

// DeployKeyAccess is what a deploy key signs in with over SSH: the key
// and the projects it is enabled for when the connection authenticated.
type DeployKeyAccess struct {
	Key      DeployKey
	Projects []int64
}

// EnabledFor reports whether the key may reach project id.
func (a *DeployKeyAccess) EnabledFor(id int64) bool {
	return a != nil && slices.Contains(a.Projects, id)
}
