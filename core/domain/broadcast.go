package domain

import "time"

// GitLab's colours for a broadcast message that names none: white text on
// its orange banner.
const (
	DefaultBroadcastColor = "#E75E40"
	DefaultBroadcastFont  = "#FFFFFF"
)

// BroadcastMessage is a banner an administrator shows every user between
// two times (GitLab's BroadcastMessage).
type BroadcastMessage struct {
	ID       int64
	Message  string
	StartsAt time.Time
	EndsAt   time.Time
	// Color is the banner's background and Font its text colour, "#RGB"
	// or "#RRGGBB"; either may be empty.
	Color     string
	Font      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Active reports whether the message shows at now: from StartsAt to
// EndsAt, both included (GitLab's started? && !ended?).
func (m *BroadcastMessage) Active(now time.Time) bool {
	return !now.Before(m.StartsAt) && !now.After(m.EndsAt)
}
