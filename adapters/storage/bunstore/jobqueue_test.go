package bunstore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hearth-forge/hearth/core/domain"
)

// TestClaimPlans checks that Claim's candidate query reads the pending
// jobs' indexes, never a scan of all jobs, while pending jobs wait in
// projects the runner does not serve and the runner's project has a long
// history (which fooled Postgres into walking every pending job).
func TestClaimPlans(t *testing.T) {
	eachDialect(t, func(t *testing.T, db *bun.DB) {
		var opts []Option
		if db.Dialect().Name() == dialect.PG {
			opts = append(opts, WithRowLocks())
		}
		st := New(db, opts...)
		if err := st.Migrate(t.Context()); err != nil {
			t.Fatal(err)
		}
		for i := range 20 {
			seedJobs(t, st, fmt.Sprint("other", i), false, 0, 100)
		}
		mine, _ := seedJobs(t, st, "mine", true, 1000, 1)
		mine2, _ := seedJobs(t, st, "mine2", true, 1000, 1)
		if _, err := db.NewRaw("ANALYZE").Exec(t.Context()); err != nil {
			t.Fatal(err)
		}
		js := &jobStore{st}
		for _, tc := range []struct {
			name     string
			runner   domain.Runner
			projects []int64
		}{
			{"specific", domain.Runner{Active: true, Tags: []string{"docker"}}, []int64{mine.ID}},
			{"specific of two projects", domain.Runner{Active: true, Tags: []string{"docker"}}, []int64{mine.ID, mine2.ID}},
			{"shared", domain.Runner{Active: true, IsShared: true, RunUntagged: true}, nil},
		} {
			plan := explain(t, db, js.candidateQuery(db, &tc.runner, tc.projects).String())
			if !strings.Contains(plan, "ci_jobs_pending") {
				t.Errorf("%s: plan does not read a pending jobs' index:\n%s", tc.name, plan)
			}
			for _, bad := range []string{"Seq Scan on ci_jobs", "SCAN j\n", "ci_jobs_project_idx", "ci_jobs_pkey"} {
				if strings.Contains(plan+"\n", bad) {
					t.Errorf("%s: plan reads %q:\n%s", tc.name, bad, plan)
				}
			}
		}
	})
}

// seedJobs creates a project (shared runners as given) with done finished
// jobs, then n pending ones tagged docker, and returns the pending ones.
func seedJobs(t testing.TB, st *Store, name string, shared bool, done, n int) (*domain.Project, []domain.Job) {
	ctx := t.Context()
	ns := &domain.Namespace{Kind: domain.NamespaceGroup, Name: name, Path: name, Visibility: domain.Private}
	if err := st.Namespaces().Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	p := &domain.Project{NamespaceID: ns.ID, Name: name, Path: name, Visibility: domain.Private,
		JobsEnabled: true, SharedRunnersEnabled: shared}
	if err := st.Projects().Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	jobs := make([]domain.Job, done+n)
	for i := range jobs {
		jobs[i] = domain.Job{Kind: domain.JobBuild, Name: fmt.Sprint("job", i), Stage: "test", Status: domain.CIPending,
			Ref: "main", SHA: "1111111111111111111111111111111111111111", Tags: []string{"docker"}}
		if i < done {
			jobs[i].Status = domain.CISuccess
		}
	}
	pl := &domain.Pipeline{ProjectID: p.ID, Ref: "main", SHA: "1111111111111111111111111111111111111111", Status: domain.CIPending}
	// In pipelines of at most 100 jobs, as real ones.
	for len(jobs) > 0 {
		batch := jobs[:min(len(jobs), 100)]
		jobs = jobs[len(batch):]
		if err := st.Pipelines().Create(ctx, pl, batch); err != nil {
			t.Fatal(err)
		}
		pl.ID = 0
	}
	pending, _, err := st.Jobs().List(ctx, domain.JobFilter{ProjectID: p.ID, Statuses: []domain.CIStatus{domain.CIPending}})
	if err != nil {
		t.Fatal(err)
	}
	return p, pending
}

// explain returns the query plan of query, one line per step.
func explain(t *testing.T, db *bun.DB, query string) string {
	t.Helper()
	prefix := "EXPLAIN QUERY PLAN "
	if db.Dialect().Name() == dialect.PG {
		prefix = "EXPLAIN "
	}
	rows, err := db.QueryContext(t.Context(), prefix+query)
	if err != nil {
		t.Fatalf("explain %s: %v", query, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		// The step's text is the last column on both dialects.
		lines = append(lines, fmt.Sprint(vals[len(vals)-1]))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}
