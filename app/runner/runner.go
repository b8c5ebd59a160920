package runner

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"go.uber.org/zap"
)

// errRunnerStopped aborts the running jobs when the runner stops hard.
var errRunnerStopped = errors.New("the runner stopped")

// Runner polls the server for jobs and runs up to Config.Concurrent of
// them at once with the shell executor.
type Runner struct {
	Config Config
	Log    *zap.Logger  // nil: no logging
	HTTP   *http.Client // nil: http.DefaultClient

	// Intervals, zero for gitlab-runner's defaults; tests shorten them.
	PollInterval  time.Duration // between requests when idle (3 s)
	MaxBackoff    time.Duration // cap of the backoff on errors (60 s)
	TraceInterval time.Duration // between trace patches (1 s)
	// HeartbeatInterval is between heartbeats (2 s): with the trace ticks
	// it bounds how late a cancel is seen, and a cancel must kill the job
	// within 5 s.
	HeartbeatInterval time.Duration
	KillGrace         time.Duration // SIGTERM to SIGKILL (2 s)
	FinalTimeout      time.Duration // retrying the end of a job (5 min)

	once    sync.Once
	cl      *Client
	hard    context.Context
	hardOff context.CancelCauseFunc
}

func (r *Runner) init() {
	r.once.Do(func() {
		if r.Log == nil {
			r.Log = zap.NewNop()
		}
		r.Config.defaults()
		// Jobs see these paths: make them absolute once.
		for _, d := range []*string{&r.Config.BuildsDir, &r.Config.CacheDir} {
			if abs, err := filepath.Abs(*d); err == nil {
				*d = abs
			}
		}
		r.cl = &Client{URL: r.Config.URL, HTTP: r.HTTP, SystemID: r.Config.SystemID}
		r.hard, r.hardOff = context.WithCancelCause(context.Background())
	})
}

func (r *Runner) client() *Client { r.init(); return r.cl }

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

func (r *Runner) pollInterval() time.Duration  { return orDefault(r.PollInterval, 3*time.Second) }
func (r *Runner) maxBackoff() time.Duration    { return orDefault(r.MaxBackoff, 60*time.Second) }
func (r *Runner) traceInterval() time.Duration { return orDefault(r.TraceInterval, time.Second) }
func (r *Runner) heartbeatInterval() time.Duration {
	return orDefault(r.HeartbeatInterval, 2*time.Second)
}
func (r *Runner) finalTimeout() time.Duration { return orDefault(r.FinalTimeout, 5*time.Minute) }

// Abort cancels the running jobs at once (they are killed and reported
// failed with runner_system_failure) and stops polling: Run returns.
func (r *Runner) Abort() {
	r.init()
	r.hardOff(errRunnerStopped)
}

// Run polls for jobs until ctx is done, then stops taking jobs and waits
// for the running ones up to Config.ShutdownTimeout before aborting them.
//
// A Runner runs once: after Run returns, make a new one.
func (r *Runner) Run(ctx context.Context) error {
	r.init()
	if r.Config.URL == "" || r.Config.Token == "" {
		return errors.New("runner: the configuration has no url or token")
	}
	log := r.Log
	slots := make(chan int, r.Config.Concurrent)
	for i := range r.Config.Concurrent {
		slots <- i
	}
	var wg sync.WaitGroup
	lastUpdate := ""
	failures := 0
	log.Info("runner started", zap.String("url", r.Config.URL), zap.Int("concurrent", r.Config.Concurrent))
poll:
	for {
		var slot int
		select {
		case <-ctx.Done():
			break poll
		case <-r.hard.Done():
			break poll
		case slot = <-slots:
		}
		// Not canceled with ctx: a job handed out while the runner stops is
		// still run rather than lost until the server's sweep.
		reqCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 90*time.Second)
		job, lu, err := r.cl.Request(reqCtx, r.Config.Token, lastUpdate)
		cancel()
		lastUpdate = lu
		if err != nil || job == nil {
			slots <- slot
			wait := r.pollInterval()
			if err != nil {
				if ctx.Err() != nil {
					break poll
				}
				failures++
				wait = backoff(r.pollInterval(), r.maxBackoff(), failures)
				log.Warn("requesting a job failed", zap.Error(err), zap.Duration("retry_in", wait))
			} else {
				failures = 0
			}
			select {
			case <-ctx.Done():
				break poll
			case <-r.hard.Done():
				break poll
			case <-time.After(wait):
			}
			continue
		}
		failures = 0
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { slots <- slot }()
			j := &jobRun{r: r, job: job, slot: slot, log: log.With(zap.Int64("job", job.ID))}
			j.log.Info("job received", zap.String("name", job.JobInfo.Name))
			j.execute(r.hard)
		}()
	}

	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(r.Config.ShutdownTimeout):
		log.Warn("shutdown timeout: aborting the running jobs")
		r.Abort()
		<-done
	case <-r.hard.Done():
		<-done
	}
	log.Info("runner stopped")
	return nil
}

// backoff is base doubled per consecutive failure, capped at limit.
func backoff(base, limit time.Duration, failures int) time.Duration {
	d := base
	for i := 1; i < failures && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}
