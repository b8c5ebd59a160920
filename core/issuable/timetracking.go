package issuable

import (
	"context"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/duration"
)

// TimeOp is one of the time tracking writes of issues and merge requests.
type TimeOp int

// The time tracking writes, one per endpoint.
const (
	SetEstimate TimeOp = iota
	ResetEstimate
	AddSpent
	ResetSpent
)

// TimeChange is a time tracking write as the API asks it.
type TimeChange struct {
	Op TimeOp
	// Duration is GitLab's human duration ("3h30m", "-1h"): required by
	// SetEstimate and AddSpent, ignored by the resets.
	Duration *string `param:"duration"`
	// Invalid is what was wrong with the request's parameters.
	Invalid error
}

// Validate is the request validation of the change: the parameters'
// problem, or 400 "duration is missing" for a write that needs one.
func (c TimeChange) Validate() error {
	if c.Invalid != nil {
		return c.Invalid
	}
	if c.Duration == nil && (c.Op == SetEstimate || c.Op == AddSpent) {
		return core.MissingParam("duration")
	}
	return nil
}

// seconds reads the duration as the model validates it: an estimate that
// does not parse "has an invalid format"; spent time that does not parse
// makes an invalid timelog, as GitLab reports it.
func (c TimeChange) seconds() (int64, error) {
	if c.Duration == nil {
		return 0, c.Validate()
	}
	n, ok := duration.Parse(*c.Duration)
	switch {
	case c.Op == SetEstimate && !ok:
		return 0, core.FieldInvalid("time_estimate", "has an invalid format")
	case c.Op == SetEstimate && n < 0:
		return 0, core.FieldInvalid("time_estimate", "must be greater than or equal to 0")
	case !ok:
		return 0, core.FieldInvalid("timelogs", "is invalid")
	}
	return n, nil
}

// TrackTime applies the change to it, whose stats were before, and writes
// GitLab's system note for it; run it in the caller's transaction, after
// the access check. It returns the new stats.
func (a *Activity) TrackTime(ctx context.Context, it Item, before domain.TimeStats, actor int64, c TimeChange) (domain.TimeStats, error) {
	var n int64
	if c.Op == SetEstimate || c.Op == AddSpent {
		var err error
		if n, err = c.seconds(); err != nil {
			return before, err
		}
	}
	var after domain.TimeStats
	var err error
	var note string
	switch c.Op {
	case SetEstimate, ResetEstimate:
		after, err = a.TimeTracking.SetEstimate(ctx, it.Subject, n, a.Now())
		if err == nil && after.TimeEstimate != before.TimeEstimate {
			note = estimateNote(after.TimeEstimate)
		}
	case AddSpent:
		after, err = a.TimeTracking.AddSpent(ctx, it.Subject, n)
		note = spentNote(n)
	case ResetSpent:
		after, err = a.TimeTracking.ResetSpent(ctx, it.Subject)
		note = "removed time spent"
	}
	if err != nil {
		return before, core.StoreError(err, itemName(it), "track time")
	}
	if note != "" {
		if err := a.SystemNotes(ctx, it, actor, note); err != nil {
			return before, err
		}
	}
	return after, nil
}

// estimateNote is GitLab's system note for a new estimate.
func estimateNote(seconds int64) string {
	if seconds == 0 {
		return "removed time estimate"
	}
	return "changed time estimate to " + duration.Format(seconds)
}

// spentNote is GitLab's system note for time added or taken off.
func spentNote(seconds int64) string {
	if seconds < 0 {
		return "subtracted " + duration.Format(-seconds) + " of time spent"
	}
	return "added " + duration.Format(seconds) + " of time spent"
}

// itemName names the item in a 404.
func itemName(it Item) string {
	if it.Subject.Type == domain.TargetMergeRequest {
		return "Merge Request"
	}
	return "Issue"
}
