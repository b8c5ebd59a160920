package runner

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"go.uber.org/zap"
)

// sendLoop streams the trace while the job runs: new bytes every trace
// interval, a heartbeat (PUT state=running) every heartbeat interval even
// without output, and every answer's Job-Status honoured.
func (j *jobRun) sendLoop(stop <-chan struct{}) {
	tick := time.NewTicker(j.r.traceInterval())
	defer tick.Stop()
	lastBeat := time.Now()
	for {
		select {
		case <-stop:
			return
		case <-j.abortCtx.Done():
			return
		case <-tick.C:
		}
		if err := j.pushTrace(j.abortCtx); err != nil && j.abortCtx.Err() == nil {
			j.log.Warn("trace patch failed", zap.Error(err))
		}
		// Half a tick of slack: a heartbeat is never a whole tick late.
		if time.Since(lastBeat) >= j.r.heartbeatInterval()-j.r.traceInterval()/2 {
			lastBeat = time.Now()
			res, err := j.r.client().UpdateJob(j.abortCtx, j.job.ID, j.job.Token, UpdateInput{State: "running", Trace: j.trace.bytes()[:j.sent]})
			if err != nil {
				if j.abortCtx.Err() == nil {
					j.log.Warn("heartbeat failed", zap.Error(err))
				}
				continue
			}
			j.observe(res)
		}
	}
}

// pushTrace sends the trace bytes the server does not hold yet, at most
// maxPatch bytes a request, resuming where a 416 says.
func (j *jobRun) pushTrace(ctx context.Context) error {
	for tries := 0; ; tries++ {
		data := j.trace.bytes()
		if j.sent >= len(data) {
			return nil
		}
		if tries > len(data)/maxPatch+4 {
			// A server that keeps moving the offset back: try again later.
			return fmt.Errorf("trace patches make no progress at %d of %d bytes", j.sent, len(data))
		}
		chunk := data[j.sent:min(len(data), j.sent+maxPatch)]
		res, err := j.r.client().PatchTrace(ctx, j.job.ID, j.job.Token, j.sent, chunk)
		if err != nil {
			return err
		}
		j.observe(res)
		switch res.Status {
		case http.StatusAccepted, http.StatusOK:
			if res.End >= j.sent && res.End <= len(data) {
				j.sent = res.End
			} else {
				j.sent += len(chunk)
			}
		case http.StatusRequestedRangeNotSatisfiable:
			if res.End < 0 || res.End > len(data) || res.End == j.sent {
				return fmt.Errorf("trace patch refused with range %d of %d bytes", res.End, len(data))
			}
			j.log.Debug("trace resumed", zap.Int("from", j.sent), zap.Int("to", res.End))
			j.sent = res.End
		case http.StatusForbidden:
			return ErrForbidden
		default:
			return fmt.Errorf("trace patch: status %d", res.Status)
		}
	}
}

// finish sends the rest of the trace, then (only once the server holds
// all of it, or after trying for a while) the final state.
func (j *jobRun) finish(res result) {
	j.trace.close()
	ctx := context.WithoutCancel(j.abortCtx)
	deadline := time.Now().Add(j.r.finalTimeout())
	if errors.Is(context.Cause(j.abortCtx), errRunnerStopped) {
		// The runner is stopping hard: one short try.
		deadline = time.Now().Add(10 * time.Second)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	wait := j.r.traceInterval()
	for {
		err := j.pushTrace(ctx)
		if err == nil {
			break
		}
		if errors.Is(err, ErrForbidden) || time.Now().After(deadline) {
			j.log.Warn("could not send the whole trace", zap.Error(err))
			break
		}
		time.Sleep(wait)
	}
	in := UpdateInput{State: "success", Trace: j.trace.bytes()}
	if res.failureReason != "" {
		in.State, in.FailureReason, in.ExitCode = "failed", res.failureReason, res.exitCode
	}
	for {
		out, err := j.r.client().UpdateJob(ctx, j.job.ID, j.job.Token, in)
		switch {
		case err == nil && out.Status == http.StatusOK:
			j.log.Info("job finished", zap.String("state", in.State), zap.String("failure_reason", in.FailureReason))
			return
		case err == nil && out.Status == http.StatusForbidden:
			j.log.Warn("final update refused", zap.String("job_status", out.JobStatus))
			return
		case time.Now().After(deadline):
			j.log.Error("could not send the final update", zap.Error(err), zap.Int("status", out.Status))
			return
		}
		// 202 (not complete yet), a server error or no connection: retry.
		time.Sleep(wait)
	}
}
