package bunstore

import (
	"fmt"
	"testing"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/domain"
)

// TestRepositoryQueryCounts: ListByTags is one query whatever the number of
// tags (none for no tags), Protect one statement, comment lists the count
// and the page.
func TestRepositoryQueryCounts(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		st := New(db)
		if err := st.Migrate(ctx); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
		g := &domain.Namespace{Kind: domain.NamespaceGroup, Name: "G", Path: "g", Visibility: domain.Public}
		if err := st.Namespaces().Create(ctx, g); err != nil {
			t.Fatal(err)
		}
		p := &domain.Project{NamespaceID: g.ID, Name: "p", Path: "p", Visibility: domain.Public}
		if err := st.Projects().Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		var tags []string
		for i := range 50 {
			tag := fmt.Sprint("v", i)
			tags = append(tags, tag)
			if i%2 == 0 {
				if _, err := st.Releases().Create(ctx, domain.Release{ProjectID: p.ID, TagName: tag}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := st.CommitComments().Create(ctx, domain.CommitComment{ProjectID: p.ID, CommitID: "abc", AuthorID: 1, Note: tag}); err != nil {
				t.Fatal(err)
			}
		}
		c := &queryCounter{}
		db.AddQueryHook(c)
		count := func(what string, want int64, fn func() error) {
			t.Helper()
			c.n.Store(0)
			if err := fn(); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if got := c.n.Load(); got != want {
				t.Errorf("%s: %d queries, want %d", what, got, want)
			}
		}
		for _, n := range []int{1, 10, 50} {
			count(fmt.Sprintf("ListByTags of %d tags", n), 1, func() error {
				got, err := st.Releases().ListByTags(ctx, p.ID, tags[:n])
				if err == nil && len(got) != (n+1)/2 {
					err = fmt.Errorf("got %d releases", len(got))
				}
				return err
			})
		}
		count("ListByTags of no tags", 0, func() error {
			_, err := st.Releases().ListByTags(ctx, p.ID, nil)
			return err
		})
		for i := range 2 {
			count(fmt.Sprint("Protect #", i+1), 1, func() error {
				_, err := st.ProtectedBranches().Protect(ctx, domain.ProtectedBranch{ProjectID: p.ID, Name: "main", PushAccessLevel: domain.LevelFor(i == 1)})
				return err
			})
		}
		for _, per := range []int{1, 20, 100} {
			count(fmt.Sprintf("comments per page %d", per), 2, func() error {
				_, n, err := st.CommitComments().List(ctx, p.ID, "abc", domain.Page{Page: 1, PerPage: per})
				if err == nil && n != 50 {
					err = fmt.Errorf("total %d", n)
				}
				return err
			})
		}
	})
}
