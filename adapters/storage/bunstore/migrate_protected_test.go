package bunstore

import (
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/domain"
)

// TestMigrationProtectedBranchLevels: migration 0021 turns the
// developers_can_push and developers_can_merge flags of existing rules
// into access levels (set: 30, unset: 40).
func TestMigrationProtectedBranchLevels(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		st := New(db)
		migrateBefore(t, st, "0021")
		p := seedProject(t, ctx, st)
		t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		for _, r := range []struct {
			name        string
			push, merge bool
		}{{"both", true, true}, {"none", false, false}, {"push", true, false}, {"merge", false, true}} {
			if _, err := db.ExecContext(ctx, `INSERT INTO protected_branches (project_id, name, developers_can_push, developers_can_merge, created_at)
				VALUES (?, ?, ?, ?, ?)`, p.ID, r.name, r.push, r.merge, t0); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Migrate(ctx); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
		list, err := st.ProtectedBranches().List(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][2]domain.AccessLevel{}
		for _, b := range list {
			got[b.Name] = [2]domain.AccessLevel{b.PushAccessLevel, b.MergeAccessLevel}
			if !b.CreatedAt.Equal(t0) {
				t.Errorf("%s: created_at %v", b.Name, b.CreatedAt)
			}
		}
		want := map[string][2]domain.AccessLevel{
			"both": {domain.Developer, domain.Developer}, "none": {domain.Master, domain.Master},
			"push": {domain.Developer, domain.Master}, "merge": {domain.Master, domain.Developer},
		}
		if len(got) != len(want) {
			t.Fatalf("rules after migration: %v", got)
		}
		for name, w := range want {
			if got[name] != w {
				t.Errorf("%s: levels %v, want %v", name, got[name], w)
			}
		}
	})
}
