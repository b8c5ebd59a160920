package domain

import (
	"fmt"
	"time"
)

// ErrTransition is returned (wrapped) when a job cannot take an event in
// its current status; callers turn it into GitLab's answer for the case
// (400 "Job is not retryable", 403 to a runner ...).
type ErrTransition struct {
	From  CIStatus
	Event string
}

func (e *ErrTransition) Error() string {
	return fmt.Sprintf("a %s job cannot %s", e.From, e.Event)
}

func (j *Job) refuse(event string) error { return &ErrTransition{From: j.Status, Event: event} }

// The job state machine, as GitLab's CommitStatus/Ci::Build define it.
// Every method sets the timestamps GitLab sets; the caller saves the job
// and publishes a JobEvent with the previous status.

// Enqueue makes a created, skipped or manual job pending (its stage came
// up, or someone played it).
func (j *Job) Enqueue(now time.Time) error {
	switch j.Status {
	case CICreated, CISkipped, CIManual:
		j.Status = CIPending
		j.QueuedAt = &now
		return nil
	}
	return j.refuse("enqueue")
}

// Actionize makes a created job manual: it waits for someone to play it.
func (j *Job) Actionize() error {
	if j.Status != CICreated {
		return j.refuse("actionize")
	}
	j.Status = CIManual
	return nil
}

// Skip marks a created job skipped: its stage came up but its when does
// not match the stages before it.
func (j *Job) Skip() error {
	if j.Status != CICreated {
		return j.refuse("skip")
	}
	j.Status = CISkipped
	return nil
}

// Run starts a pending job (a runner took it, or a commit status said so).
func (j *Job) Run(now time.Time) error {
	if j.Status != CIPending && !(j.Kind == JobExternal && j.Status == CICreated) {
		return j.refuse("run")
	}
	j.Status = CIRunning
	j.StartedAt = &now
	return nil
}

// Succeed finishes a pending or running job with success.
func (j *Job) Succeed(now time.Time) error {
	if j.Status != CIPending && j.Status != CIRunning && !(j.Kind == JobExternal && j.Status == CICreated) {
		return j.refuse("succeed")
	}
	if j.Status != CIRunning {
		j.RunnerFinished = true
	}
	j.Status = CISuccess
	j.finish(now)
	return nil
}

// Drop fails a created, pending or running job for reason (FailureScript ...).
func (j *Job) Drop(now time.Time, reason string) error {
	switch j.Status {
	case CICreated, CIPending, CIRunning:
		if j.Status != CIRunning {
			j.RunnerFinished = true // no runner had it
		}
		j.Status = CIFailed
		if reason == "" {
			reason = FailureUnknown
		}
		j.FailureReason = reason
		j.finish(now)
		return nil
	}
	return j.refuse("drop")
}

// Cancel cancels a job that has not finished. A running job's runner goes
// on until it reports the end (RunnerFinished stays false until then) and
// is told "canceling" meanwhile.
func (j *Job) Cancel(now time.Time) error {
	switch j.Status {
	case CICreated, CIPending, CIRunning, CIManual:
		if j.Status != CIRunning {
			j.RunnerFinished = true
		}
		j.Status = CICanceled
		j.finish(now)
		return nil
	}
	return j.refuse("cancel")
}

func (j *Job) finish(now time.Time) { j.FinishedAt = &now }

// Retryable reports whether the job may be retried (GitLab: a finished CI
// job; commit statuses are not retried).
func (j *Job) Retryable() bool {
	return j.Kind == JobBuild && (j.Status == CISuccess || j.Status == CIFailed || j.Status == CICanceled)
}

// Playable reports whether the job waits to be played (a manual job), or
// may be played again (a finished manual job, as GitLab allows).
func (j *Job) Playable() bool {
	return j.Kind == JobBuild && j.When == WhenManual && (j.Status == CIManual || j.Retryable() || j.Status == CISkipped)
}

// Cancelable reports whether Cancel applies.
func (j *Job) Cancelable() bool {
	switch j.Status {
	case CICreated, CIPending, CIRunning, CIManual:
		return true
	}
	return false
}

// Erasable reports whether Erase may remove the trace and artifacts (a
// finished CI job not yet erased).
func (j *Job) Erasable() bool {
	return j.Kind == JobBuild && j.Status.Completed() && j.ErasedAt == nil
}

// RetryOf returns the new job that retries j: a copy with a new identity
// and a fresh lifecycle (created, no runner, no token, no trace, no
// timestamps but CreatedAt). The caller marks j Retried and saves both.
func (j *Job) RetryOf(now time.Time, userID *int64) Job {
	n := *j
	n.ID = 0
	n.Status = CICreated
	n.UserID = userID
	n.RunnerID = nil
	n.TokenDigest = ""
	n.Coverage = nil
	n.FailureReason = ""
	n.TraceSize = 0
	n.ArtifactsExpireAt = nil
	n.ErasedAt, n.ErasedBy = nil, nil
	n.Retried = false
	n.RunnerFinished = false
	n.CreatedAt, n.UpdatedAt = now, now
	n.QueuedAt, n.StartedAt, n.FinishedAt = nil, nil, nil
	n.Tags = append([]string(nil), j.Tags...)
	return n
}

// Duration is how long the job ran, in seconds (nil before it started).
func (j *Job) Duration(now time.Time) *float64 {
	if j.StartedAt == nil {
		return nil
	}
	end := now
	if j.FinishedAt != nil {
		end = *j.FinishedAt
	}
	d := end.Sub(*j.StartedAt).Seconds()
	return &d
}
