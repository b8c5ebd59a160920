package domain

import (
	"slices"
	"sort"
	"time"
)

// The pipeline state machine, as GitLab 9.x computes it: HasStatus's
// status_sql for the composite status of a set of jobs,
// Ci::ProcessPipelineService for what happens to the created jobs of each
// stage, and Ci::Pipeline#update_status for the pipeline's own
// transitions and timestamps.

// ignored reports whether a job does not count towards a composite status
// (GitLab's exclude_ignored): a job allowed to fail that failed, was
// canceled or waits as a manual action.
func (j *Job) ignored() bool {
	return j.AllowFailure && (j.Status == CIFailed || j.Status == CICanceled || j.Status == CIManual)
}

// warning reports whether a job failed but was allowed to (GitLab's
// failed_but_allowed).
func (j *Job) warning() bool {
	return j.AllowFailure && (j.Status == CIFailed || j.Status == CICanceled)
}

// CompositeStatus is the status of a set of jobs, exactly as GitLab's
// status_sql computes it. Retried jobs are left out (GitLab counts the
// latest only). An empty set is skipped.
func CompositeStatus(jobs []Job) CIStatus {
	var all, created, success, manual, pending, running, skipped, canceled int
	warnings := false
	for i := range jobs {
		j := &jobs[i]
		if j.Retried {
			continue
		}
		if j.warning() {
			warnings = true
		}
		if j.ignored() {
			continue
		}
		all++
		switch j.Status {
		case CICreated:
			created++
		case CISuccess:
			success++
		case CIManual:
			manual++
		case CIPending:
			pending++
		case CIRunning:
			running++
		case CISkipped:
			skipped++
		case CICanceled:
			canceled++
		}
	}
	switch {
	case all == skipped && warnings:
		return CISuccess
	case all == skipped:
		return CISkipped
	case all == success:
		return CISuccess
	case all == created:
		return CICreated
	case all == success+skipped:
		return CISuccess
	case all == success+skipped+canceled:
		return CICanceled
	case all == created+skipped+pending:
		return CIPending
	case running+pending > 0:
		return CIRunning
	case manual > 0:
		return CIManual
	case created > 0:
		return CIRunning
	}
	return CIFailed
}

// WhenAllows reports whether a job with this when runs after earlier
// stages that ended with prior (GitLab's valid_statuses_for_when).
func WhenAllows(when string, prior CIStatus) bool {
	switch when {
	case WhenOnSuccess, WhenManual:
		return prior == CISuccess || prior == CISkipped
	case WhenOnFailure:
		return prior == CIFailed
	case WhenAlways:
		return prior == CISuccess || prior == CIFailed || prior == CISkipped
	}
	return false
}

// ProcessJobs moves the created CI jobs of a pipeline forward, stage by
// stage, as Ci::ProcessPipelineService does: the created jobs of a stage
// are processed only when the stages before it are completed (a manual
// status blocks them); a job whose when matches the earlier stages'
// status is enqueued (a manual one becomes manual), any other is skipped.
// jobs are every job of the pipeline; the ones that change are changed in
// place and their indexes returned, in stage order.
func ProcessJobs(jobs []Job, now time.Time) []int {
	var stages []int
	for i := range jobs {
		j := &jobs[i]
		if j.Kind == JobBuild && !j.Retried && j.Status == CICreated && !slices.Contains(stages, j.StageIdx) {
			stages = append(stages, j.StageIdx)
		}
	}
	sort.Ints(stages)
	var changed []int
	for _, idx := range stages {
		prior := priorStatus(jobs, idx)
		if prior == CIManual || !prior.Completed() {
			continue
		}
		for i := range jobs {
			j := &jobs[i]
			if j.Kind != JobBuild || j.Retried || j.Status != CICreated || j.StageIdx != idx {
				continue
			}
			var err error
			switch {
			case !WhenAllows(j.When, prior):
				err = j.Skip()
			case j.When == WhenManual:
				err = j.Actionize()
			default:
				err = j.Enqueue(now)
			}
			if err == nil {
				changed = append(changed, i)
			}
		}
	}
	return changed
}

// priorStatus is the composite status of the CI jobs of the stages before
// idx (GitLab's status_for_prior_stages).
func priorStatus(jobs []Job, idx int) CIStatus {
	var before []Job
	for _, j := range jobs {
		if j.Kind == JobBuild && j.StageIdx < idx {
			before = append(before, j)
		}
	}
	return CompositeStatus(before)
}

// StatusOf is what the pipeline's jobs make its status (GitLab's
// latest_builds_status): failed when its configuration was invalid, the
// composite status of its jobs otherwise.
func (p *Pipeline) StatusOf(jobs []Job) CIStatus {
	if p.YAMLErrors != "" {
		return CIFailed
	}
	return CompositeStatus(jobs)
}

// Follow moves the pipeline to the status its jobs make (StatusOf), with
// the transitions and timestamps of GitLab's pipeline state machine:
// started when it leaves created or pending for running, finished (with
// its duration) when it succeeds, fails or is canceled, its duration
// updated when it blocks on a manual action. A created composite status
// changes nothing, and a running pipeline whose jobs are pending again
// stays running. It reports whether the status changed.
func (p *Pipeline) Follow(jobs []Job, now time.Time) bool {
	to := p.StatusOf(jobs)
	from := p.Status
	switch to {
	case CICreated:
		return false
	case CIPending: // GitLab's enqueue
		switch from {
		case CICreated:
		case CISuccess, CIFailed, CICanceled, CISkipped:
			to = CIRunning
		default:
			return false
		}
	}
	if to == from {
		return false
	}
	if to == CIRunning && (from == CICreated || from == CIPending) {
		p.StartedAt = &now
	}
	if to.Active() {
		// Retried jobs run again: the old end no longer holds.
		p.FinishedAt, p.Duration = nil, nil
	}
	p.Status = to
	switch to {
	case CISuccess, CIFailed, CICanceled:
		p.FinishedAt = &now
		p.Duration = PipelineDuration(jobs, now)
	case CIManual:
		p.Duration = PipelineDuration(jobs, now)
	}
	return true
}

// PipelineDuration is how long a pipeline's jobs ran, in seconds, with
// overlapping runs counted once (Gitlab::Ci::PipelineDuration): the latest
// CI jobs that started and succeeded, failed, run or were canceled.
func PipelineDuration(jobs []Job, now time.Time) *int {
	type period struct{ from, to time.Time }
	var ps []period
	for _, j := range jobs {
		if j.Kind != JobBuild || j.Retried || j.StartedAt == nil {
			continue
		}
		switch j.Status {
		case CISuccess, CIFailed, CIRunning, CICanceled:
		default:
			continue
		}
		end := now
		if j.FinishedAt != nil {
			end = *j.FinishedAt
		}
		ps = append(ps, period{*j.StartedAt, end})
	}
	sort.Slice(ps, func(a, b int) bool { return ps[a].from.Before(ps[b].from) })
	var total time.Duration
	var cur *period
	for i := range ps {
		p := ps[i]
		switch {
		case cur == nil:
			cur = &p
		case !p.from.After(cur.to):
			if p.to.After(cur.to) {
				cur.to = p.to
			}
		default:
			total += cur.to.Sub(cur.from)
			cur = &p
		}
	}
	if cur != nil {
		total += cur.to.Sub(cur.from)
	}
	d := int(total / time.Second)
	return &d
}

// PipelineCoverage is the average coverage of the latest jobs that have
// one (GitLab's Ci::Pipeline#coverage), nil when none has.
func PipelineCoverage(jobs []Job) *float64 {
	var sum float64
	n := 0
	for _, j := range jobs {
		if j.Retried || j.Coverage == nil {
			continue
		}
		sum += *j.Coverage
		n++
	}
	if n == 0 {
		return nil
	}
	avg := sum / float64(n)
	return &avg
}
