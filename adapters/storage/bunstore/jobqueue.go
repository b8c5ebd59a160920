package bunstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hearth-forge/hearth/core/domain"
)

// The job queue: Claim hands pending CI jobs out, QueueVersion tells
// runners whether anything was queued since they last asked, Stale feeds
// the sweep of stuck jobs.
//
// Claim reads ci_jobs_pending_idx for the projects the runner serves (a
// specific runner's, or every project with shared runners on for a shared
// one), so its cost does not grow with the jobs waiting in other projects
// nor with the projects' finished jobs.
// Postgres locks the candidate it picks with FOR UPDATE SKIP LOCKED, so
// concurrent claims on any number of nodes take different jobs without
// waiting for each other; SQLite serialises writers and takes the job with
// a compare-and-swap UPDATE (status still pending), moving to the next
// candidate when it lost.

// claimRounds bounds how often Claim looks for candidates again after
// losing every one of them to concurrent claims.
const claimRounds = 5

// Claim hands runner the oldest pending CI job it may take (see
// ports.JobStore.Claim). A paused runner gets none.
func (st *jobStore) Claim(ctx context.Context, runner *domain.Runner, now time.Time, assign func(j *domain.Job) (string, error)) (*domain.Job, error) {
	if runner == nil || !runner.Active {
		return nil, nil
	}
	now = ts(now)
	var out *domain.Job
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		for range claimRounds {
			ids, err := st.candidates(ctx, db, runner)
			if err != nil {
				return fmt.Errorf("candidates: %w", err)
			}
			if len(ids) == 0 {
				return nil
			}
			for _, id := range ids {
				j, err := st.take(ctx, db, id, runner.ID, now, assign)
				if err != nil || j != nil {
					out = j
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("bunstore: claim a job for runner %d: %w", runner.ID, err)
	}
	return out, nil
}

// candidates lists the IDs of the oldest pending jobs runner may take: on
// Postgres the first one not locked by another claim, locked; on SQLite a
// few, for take's compare-and-swap.
func (st *jobStore) candidates(ctx context.Context, db bun.IDB, r *domain.Runner) ([]int64, error) {
	var projects []int64
	if !r.IsShared {
		// The runner's projects first, as a list: the planner then reads
		// each one's pending jobs from ci_jobs_pending_idx instead of
		// walking every pending job in ID order.
		err := db.NewSelect().TableExpr("ci_runner_projects AS rp").Column("rp.project_id").
			Join("JOIN projects AS p ON p.id = rp.project_id").
			Where("rp.runner_id = ? AND p.jobs_enabled = ?", r.ID, true).Scan(ctx, &projects)
		if err != nil || len(projects) == 0 {
			return nil, err
		}
	}
	var ids []int64
	if err := st.candidateQuery(db, r, projects).Scan(ctx, &ids); err != nil {
		return nil, err
	}
	return ids, nil
}

// candidateQuery selects the IDs candidates returns: the pending jobs of
// projects (a specific runner's) or of every project with shared runners
// (a shared runner's), whose tags the runner has.
func (st *jobStore) candidateQuery(db bun.IDB, r *domain.Runner, projects []int64) *bun.SelectQuery {
	pg := st.s.db.Dialect().Name() == dialect.PG
	q := db.NewSelect().TableExpr("ci_jobs AS j").Column("j.id").
		// Literal, so that the partial indexes' predicate matches.
		Where("j.status = 'pending' AND j.kind = 'build'")
	if r.IsShared {
		q = q.Join("JOIN projects AS p ON p.id = j.project_id").
			Where("p.jobs_enabled = ? AND p.shared_runners_enabled = ?", true, true)
	} else {
		q = q.Where("j.project_id IN (?)", bun.List(projects))
	}
	// Every tag of the job must be one of the runner's: checked on each
	// candidate row from its JSON array.
	switch tags := dedupeStrings(r.Tags); {
	case len(tags) == 0:
		q = q.Where("j.tags = '[]'")
	case pg:
		q = q.Where("j.tags::jsonb <@ ?::jsonb", jsonStrings(tags))
	default:
		q = q.Where("NOT EXISTS (SELECT 1 FROM json_each(j.tags) AS t WHERE t.value NOT IN (?))", bun.List(tags))
	}
	if !r.RunUntagged {
		q = q.Where("j.tags <> '[]'")
	}
	if r.AccessLevel == domain.RunnerRefProtected {
		q = q.Where("j.protected = ?", true)
	}
	// "+ 0": no index yields this order, so the planner reads the pending
	// jobs of the runner's projects from ci_jobs_pending_idx and sorts
	// them, rather than walking all jobs in ID order until one matches
	// (which it may think cheap when it overestimates how many of the
	// pending jobs are the runner's, as it does for projects with a long
	// history).
	q = q.OrderExpr("j.id + 0")
	if pg {
		return q.Limit(1).For("UPDATE OF j SKIP LOCKED")
	}
	return q.Limit(10)
}

// take moves job id from pending to running for runnerID, if it is still
// pending, and gives it the token digest assign returns; nil when another
// claim took it first.
func (st *jobStore) take(ctx context.Context, db bun.IDB, id, runnerID int64, now time.Time, assign func(*domain.Job) (string, error)) (*domain.Job, error) {
	res, err := db.NewUpdate().Model((*jobRow)(nil)).
		Set("status = ?", string(domain.CIRunning)).
		Set("runner_id = ?", runnerID).
		Set("started_at = ?", now).
		Set("updated_at = ?", now).
		Where("id = ? AND status = 'pending' AND kind = 'build'", id).
		Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("take job %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return nil, err
	}
	j, err := jobTable.get(ctx, db.NewSelect().Where("j.id = ?", id))
	if err != nil {
		return nil, err
	}
	digest, err := assign(j)
	if err != nil {
		return nil, err
	}
	if _, err := db.NewUpdate().Model((*jobRow)(nil)).Set("token_digest = ?", nullString(digest)).
		Where("id = ?", id).Exec(ctx); err != nil {
		return nil, fmt.Errorf("job %d token: %w", id, writeErr(err, "Job"))
	}
	j.TokenDigest = digest
	return j, nil
}

// bumpQueue changes the queue version because a job became pending. On
// SQLite the counter row moves in the caller's transaction (writers are
// serialised anyway). On Postgres a counter row would make every
// transaction that queues a job wait for the others, so a sequence moves
// instead, after commit: a runner that sees the new version also sees the
// job, and one that saw the old version asks again.
func (s *Store) bumpQueue(ctx context.Context, db bun.IDB) error {
	if s.db.Dialect().Name() != dialect.PG {
		if _, err := db.ExecContext(ctx, "UPDATE ci_queue SET version = version + 1 WHERE id = 1"); err != nil {
			return fmt.Errorf("queue version: %w", err)
		}
		return nil
	}
	s.tx.AfterCommit(ctx, func(ctx context.Context) {
		// A failed bump only delays runners until the next one: they ask
		// again anyway.
		_, _ = s.db.ExecContext(ctx, "SELECT nextval('ci_queue_version')")
	})
	return nil
}

// QueueVersion is the queue version as a decimal number.
func (st *jobStore) QueueVersion(ctx context.Context) (string, error) {
	query := "SELECT version FROM ci_queue WHERE id = 1"
	if st.s.db.Dialect().Name() == dialect.PG {
		// A sequence never called reads its start value.
		query = "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM ci_queue_version"
	}
	var v int64
	if err := st.s.Conn(ctx).NewRaw(query).Scan(ctx, &v); err != nil {
		return "", fmt.Errorf("bunstore: queue version: %w", err)
	}
	return strconv.FormatInt(v, 10), nil
}

// Stale lists running CI jobs by last update and pending ones by queue
// time, each through its partial index, merged oldest first.
func (st *jobStore) Stale(ctx context.Context, runningBefore, pendingBefore time.Time, limit int) ([]domain.Job, error) {
	if limit <= 0 {
		return []domain.Job{}, nil
	}
	db := st.s.Conn(ctx)
	running, err := jobTable.list(ctx, db.NewSelect().
		Where("(j.status = 'running' OR (j.status = 'canceled' AND NOT j.runner_finished)) AND j.kind = 'build' AND j.updated_at < ?", ts(runningBefore)).
		OrderExpr("j.updated_at, j.id").Limit(int64(limit)))
	if err != nil {
		return nil, fmt.Errorf("bunstore: stale running jobs: %w", err)
	}
	pending, err := jobTable.list(ctx, db.NewSelect().
		Where("j.status = 'pending' AND j.kind = 'build' AND j.queued_at < ?", ts(pendingBefore)).
		OrderExpr("j.queued_at, j.id").Limit(int64(limit)))
	if err != nil {
		return nil, fmt.Errorf("bunstore: stale pending jobs: %w", err)
	}
	out := append(running, pending...)
	since := func(j domain.Job) time.Time {
		if j.Status == domain.CIPending {
			return *j.QueuedAt
		}
		return j.UpdatedAt
	}
	slices.SortStableFunc(out, func(a, b domain.Job) int { return since(a).Compare(since(b)) })
	return out[:min(limit, len(out))], nil
}
