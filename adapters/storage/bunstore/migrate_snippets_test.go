package bunstore

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// TestMigrationPersonalSnippets: migration 0019 lets snippets have no
// project (SQLite rebuilds the table) and keeps every row, its id, the
// project cascade, and the id counter: the id of a snippet deleted before
// the migration is not handed out again.
func TestMigrationPersonalSnippets(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		st := New(db)
		migrateBefore(t, st, "0019")
		p := seedProject(t, ctx, st)
		t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		var made []*domain.Snippet
		for i, title := range []string{"kept", "also kept", "deleted"} {
			sn := &domain.Snippet{ProjectID: p.ID, AuthorID: 7, Title: title, FileName: "f.rb", Description: "d",
				Content: "puts 1", Visibility: domain.Internal, UserAgent: "ua", IPAddress: "10.0.0.1",
				AkismetSubmitted: i == 1, CreatedAt: t0, UpdatedAt: t0}
			if err := st.Snippets().Create(ctx, sn); err != nil {
				t.Fatal(err)
			}
			made = append(made, sn)
		}
		if err := st.Snippets().Delete(ctx, p.ID, made[2].ID); err != nil {
			t.Fatal(err)
		}

		if err := st.Migrate(ctx); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
		for _, want := range made[:2] {
			got, err := st.Snippets().Get(ctx, p.ID, want.ID)
			if err != nil {
				t.Fatalf("snippet %d after the migration: %v", want.ID, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("snippet %d after the migration (-want +got):\n%s", want.ID, diff)
			}
		}
		personal := &domain.Snippet{AuthorID: 7, Title: "personal", FileName: "p.txt", Content: "x",
			Visibility: domain.Public, CreatedAt: t0, UpdatedAt: t0}
		if err := st.Snippets().Create(ctx, personal); err != nil {
			t.Fatalf("personal snippet after the migration: %v", err)
		}
		if personal.ID <= made[2].ID {
			t.Errorf("new snippet id %d, want after %d (deleted before the migration)", personal.ID, made[2].ID)
		}
		// Deleting the project still takes its snippets, and only them.
		if err := st.Projects().Delete(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Snippets().Get(ctx, p.ID, made[0].ID); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("snippet of the deleted project: %v", err)
		}
		if _, err := st.Snippets().Get(ctx, 0, personal.ID); err != nil {
			t.Errorf("personal snippet after a project's deletion: %v", err)
		}
	})
}
