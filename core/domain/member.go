package domain

import (
	"slices"
	"time"
)

// MemberJoined and MemberLeft record membership changes of projects (and
// groups, with ProjectID nil).
type MemberJoined struct {
	Member    Member
	ProjectID *int64
	Actor     int64
}

func (MemberJoined) EventName() string { return "member.joined" }

type MemberLeft struct {
	Member    Member
	ProjectID *int64
	Actor     int64
}

func (MemberLeft) EventName() string { return "member.left" }

// AccessLevel is a member's role.
type AccessLevel int

const (
	NoAccess  AccessLevel = 0
	Guest     AccessLevel = 10
	Reporter  AccessLevel = 20
	Developer AccessLevel = 30
	Master    AccessLevel = 40
	Owner     AccessLevel = 50
)

// Valid reports whether l is a level a member may hold.
func (l AccessLevel) Valid() bool {
	switch l {
	case Guest, Reporter, Developer, Master, Owner:
		return true
	}
	return false
}

// MemberSource tells what a membership is of.
type MemberSource string

const (
	MemberOfProject MemberSource = "project"
	MemberOfGroup   MemberSource = "group"
)

// Member is a user's membership of a project or group.
type Member struct {
	Source      MemberSource
	SourceID    int64
	UserID      int64
	AccessLevel AccessLevel
	ExpiresAt   *time.Time // a date; the membership ends on it
	CreatedAt   time.Time
	CreatedBy   int64
}

// Active reports whether the membership counts at now.
func (m *Member) Active(now time.Time) bool { return m.ExpiresAt == nil || now.Before(*m.ExpiresAt) }

// ProjectShare gives a group's members access to a project, capped at GroupAccess.
type ProjectShare struct {
	ProjectID   int64
	GroupID     int64
	GroupAccess AccessLevel
	ExpiresAt   *time.Time
	CreatedAt   time.Time
}

// DateOf is t's UTC date at midnight: how the expiry dates of memberships,
// shares and tokens are kept.
func DateOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// Standing is what an access check read about a signed-in caller's place in
// one project, so that rendering the project (its permissions block, its
// shared_with_groups) reuses it instead of reading it again. Each part is
// only meaningful when its flag says it was read.
type Standing struct {
	UserID    int64
	ProjectID int64
	// Direct holds the caller's rows in the project (expired ones too).
	Direct     []Member
	DirectRead bool
	// Groups holds the caller's rows in the groups GroupIDs lists.
	Groups   []Member
	GroupIDs []int64
	// Shares are the project's shares with groups.
	Shares     []ProjectShare
	SharesRead bool
}

// GroupRows are the caller's rows in groups ids when the access check read
// all of them; ok is false otherwise.
func (s *Standing) GroupRows(ids []int64) (rows []Member, ok bool) {
	if s == nil {
		return nil, false
	}
	for _, id := range ids {
		if !slices.Contains(s.GroupIDs, id) {
			return nil, false
		}
	}
	for _, m := range s.Groups {
		if slices.Contains(ids, m.SourceID) {
			rows = append(rows, m)
		}
	}
	return rows, true
}
