package domain

import "time"

// HookDeliveryState is where a webhook delivery is in the outbox.
type HookDeliveryState string

// The states of a delivery: pending (waiting for its next attempt),
// running (claimed by a node), delivered and failed (given up) are final.
const (
	HookDeliveryPending   HookDeliveryState = "pending"
	HookDeliveryRunning   HookDeliveryState = "running"
	HookDeliveryDelivered HookDeliveryState = "delivered"
	HookDeliveryFailed    HookDeliveryState = "failed"
)

// Finished reports whether the state is final.
func (s HookDeliveryState) Finished() bool {
	return s == HookDeliveryDelivered || s == HookDeliveryFailed
}

// HookDelivery is one event to POST to one hook: a row of the webhook
// outbox, with the outcome of its last attempt.
type HookDelivery struct {
	ID     int64
	HookID int64
	// Event is the X-Gitlab-Event header ("Push Hook").
	Event string
	// Payload is the JSON body.
	Payload string
	State   HookDeliveryState
	// Attempts counts the claims so far (an attempt starts when a node
	// claims the delivery); MaxAttempts is when a failing delivery is
	// given up.
	Attempts    int
	MaxAttempts int
	// NextAttemptAt is when a pending delivery may be claimed.
	NextAttemptAt time.Time
	// ClaimedBy is the node that claimed it last; ClaimExpiresAt, set
	// while running, is when another node may take it over.
	ClaimedBy      string
	ClaimExpiresAt *time.Time
	// LastStatus is the HTTP status of the last response (0: none came);
	// LastError says why the last attempt failed.
	LastStatus   int
	LastError    string
	LastDuration time.Duration
	// LastResponse is the start of the last response's body (at most
	// HookResponseLimit bytes), for the recent deliveries API.
	LastResponse string

	// Target is the hook as it is now; Claim fills it in, so a worker
	// sends to the hook's current URL with its current token.
	Target HookTarget

	CreatedAt   time.Time
	UpdatedAt   time.Time
	DeliveredAt *time.Time
}

// HookAttempt is the outcome of one attempt at a delivery.
type HookAttempt struct {
	// Status is the response's HTTP status, 0 when none came.
	Status int
	// Err is why the attempt failed ("" for a 2xx response).
	Err      string
	Duration time.Duration
	At       time.Time
	// Response is the start of the response body (HookResponseLimit).
	Response string
	// Retry asks for another attempt at NextAt (a connection error or a
	// 5xx), if the delivery has attempts left.
	Retry  bool
	NextAt time.Time
	// DisableAfter is the hook's failure threshold: a failed attempt adds
	// one to the hook's FailureCount and, from DisableAfter failures in a
	// row on, disables the hook for HookDisableBackoff. 0 never disables.
	DisableAfter int
}

// HookResponseLimit is how much of a response body a delivery keeps.
const HookResponseLimit = 8 << 10

// HookDisableBackoff is how long a hook stays disabled after failures
// failed deliveries in a row, threshold being where disabling starts: a
// minute, doubling with each further failure, at most a day (GitLab's
// WebHooks::AutoDisabling backoff).
func HookDisableBackoff(failures, threshold int) time.Duration {
	n := failures - threshold
	if n < 0 {
		return 0
	}
	d := time.Minute
	for i := 0; i < n && d < 24*time.Hour; i++ {
		d *= 2
	}
	return min(d, 24*time.Hour)
}

// Delivered reports whether the attempt succeeded: a 2xx response.
func (a HookAttempt) Delivered() bool {
	return a.Err == "" && a.Status >= 200 && a.Status < 300
}

// HookEvent is a change that hooks may want, kept in the outbox in the
// change's transaction and fanned out afterwards by the delivery nodes
// (payload built, one delivery per hook), so that a change pays one small
// row whatever its hooks.
type HookEvent struct {
	ID int64
	// Kind names the domain event Data holds (its BusEvent.EventName).
	Kind string
	// Data is the domain event as JSON.
	Data string
	// Attempts counts the claims so far.
	Attempts int
	// ClaimedBy is the node that claimed it last, until ClaimExpiresAt.
	ClaimedBy      string
	ClaimExpiresAt *time.Time
	CreatedAt      time.Time
}
