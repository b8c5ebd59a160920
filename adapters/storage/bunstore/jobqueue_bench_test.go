package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"

	"github.com/hearth-forge/hearth/adapters/storage/postgres/pgtest"
	"github.com/hearth-forge/hearth/core/domain"
)

// The job queue's benchmarks: a runner asks for a job while 10,000
// pending jobs wait in projects it may not serve. Claim must stay an index
// lookup, so its cost does not grow with them. Run with
//
//	CI=true go test -run '^$' -bench . ./adapters/storage/bunstore/

// benchOtherJobs is how many pending jobs wait in other projects;
// benchDoneJobs how many finished ones the runner's project has (the
// pending job must come from the pending jobs' index, not from a walk of
// all the project's jobs).
const (
	benchOtherJobs = 10_000
	benchDoneJobs  = 2_000
)

// benchDialects runs fn on a fresh, migrated SQLite file and Postgres
// schema.
func benchDialects(b *testing.B, fn func(b *testing.B, st *Store)) {
	b.Run("sqlite", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "hearth.db")
		sqldb, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate")
		if err != nil {
			b.Fatal(err)
		}
		db := bun.NewDB(sqldb, sqlitedialect.New())
		b.Cleanup(func() { db.Close() })
		fn(b, benchStore(b, db))
	})
	b.Run("postgres", func(b *testing.B) {
		sqldb, err := sql.Open("pgx", pgtest.DSN(b))
		if err != nil {
			b.Fatal(err)
		}
		db := bun.NewDB(sqldb, pgdialect.New())
		b.Cleanup(func() { db.Close() })
		fn(b, benchStore(b, db, WithRowLocks()))
	})
}

func benchStore(b *testing.B, db *bun.DB, opts ...Option) *Store {
	st := New(db, opts...)
	if err := st.Migrate(b.Context()); err != nil {
		b.Fatal(err)
	}
	return st
}

var errBenchRollback = errors.New("roll back")

// benchClaim claims one job for r per iteration inside a transaction that
// rolls back, so the queue is the same every time.
func benchClaim(b *testing.B, st *Store, r *domain.Runner, want int64) {
	ctx := b.Context()
	if _, err := st.DB().NewRaw("ANALYZE").Exec(ctx); err != nil {
		b.Fatal(err)
	}
	assign := func(j *domain.Job) (string, error) { return domain.TokenDigest(fmt.Sprint("bench-", j.ID)), nil }
	b.ResetTimer()
	for range b.N {
		err := st.Tx().WithinTx(ctx, func(ctx context.Context) error {
			j, err := st.Jobs().Claim(ctx, r, now(), assign)
			if err != nil {
				return err
			}
			if j == nil || j.ID != want {
				return fmt.Errorf("claimed %v, want job %d", j, want)
			}
			return errBenchRollback
		})
		if !errors.Is(err, errBenchRollback) {
			b.Fatal(err)
		}
	}
}

// BenchmarkClaimSpecificRunner: a specific runner of one project with one
// pending job (and 2,000 finished), while 0 or 10,000 wait in 100 other
// projects: the two must cost the same.
func BenchmarkClaimSpecificRunner(b *testing.B) { benchClaimAmongOthers(b, false) }

// BenchmarkClaimSharedRunner: a shared runner, one pending job (and 2,000
// finished) in a project with shared runners on, while 0 or 10,000 older
// ones wait in 100 projects with shared runners off.
func BenchmarkClaimSharedRunner(b *testing.B) { benchClaimAmongOthers(b, true) }

// benchClaimAmongOthers claims the one job a runner (shared or specific to
// its project) may take while 0 or 10,000 others wait in projects it does
// not serve.
func benchClaimAmongOthers(b *testing.B, shared bool) {
	for _, others := range []int{0, benchOtherJobs} {
		b.Run(fmt.Sprint("others=", others), func(b *testing.B) {
			benchDialects(b, func(b *testing.B, st *Store) {
				for i := range 100 {
					// Shared runners off, so that a shared runner may not take them.
					seedJobs(b, st, fmt.Sprint("other", i), false, 0, others/100)
				}
				p, jobs := seedJobs(b, st, "mine", true, benchDoneJobs, 1)
				r := &domain.Runner{TokenDigest: "bench", Active: true, IsShared: shared, RunUntagged: true, Tags: []string{"docker"}}
				if err := st.Runners().Create(b.Context(), r); err != nil {
					b.Fatal(err)
				}
				if !shared {
					if err := st.Runners().AddProject(b.Context(), r.ID, p.ID); err != nil {
						b.Fatal(err)
					}
				}
				benchClaim(b, st, r, jobs[0].ID)
			})
		})
	}
}

// BenchmarkAppendTrace appends 1 KiB lines to a running job's trace: the
// cost of an append must not grow with the trace (chunks are rows).
func BenchmarkAppendTrace(b *testing.B) {
	benchDialects(b, func(b *testing.B, st *Store) {
		_, jobs := seedJobs(b, st, "p", true, 0, 1)
		line := []byte(fmt.Sprintf("%01023d\n", 0))
		ctx := b.Context()
		var size int64
		b.ResetTimer()
		for range b.N {
			var err error
			if size, err = st.Jobs().AppendTrace(ctx, jobs[0].ID, size, line); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkJobList reads the first page (20) of a project's 10,000 jobs,
// newest first, with the total.
func BenchmarkJobList(b *testing.B) {
	benchDialects(b, func(b *testing.B, st *Store) {
		p, _ := seedJobs(b, st, "p", true, benchOtherJobs-1, 1)
		seedJobs(b, st, "other", true, benchOtherJobs, 0)
		ctx := b.Context()
		if _, err := st.DB().NewRaw("ANALYZE").Exec(ctx); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			list, n, err := st.Jobs().List(ctx, domain.JobFilter{ProjectID: p.ID, Page: domain.Page{Page: 1, PerPage: 20}})
			if err != nil || len(list) != 20 || n != benchOtherJobs {
				b.Fatalf("List = %d jobs of %d, %v", len(list), n, err)
			}
		}
	})
}
