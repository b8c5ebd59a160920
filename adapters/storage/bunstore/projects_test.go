package bunstore

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/migrate"

	"github.com/hearth-forge/hearth/adapters/storage/postgres/pgtest"
	"github.com/hearth-forge/hearth/core/domain"
)

// The adapters' own packages import bunstore, so these tests open the
// databases directly.

func openSQLite(t *testing.T) *bun.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hearth.db")
	sqldb, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	db := bun.NewDB(sqldb, sqlitedialect.New())
	t.Cleanup(func() { db.Close() })
	return db
}

func openPostgres(t *testing.T) *bun.DB {
	t.Helper()
	sqldb, err := sql.Open("pgx", pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	db := bun.NewDB(sqldb, pgdialect.New())
	t.Cleanup(func() { db.Close() })
	return db
}

// eachDialect runs fn on an empty SQLite database and an empty Postgres
// schema, side by side.
func eachDialect(t *testing.T, fn func(t *testing.T, db *bun.DB)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		fn(t, openSQLite(t))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		fn(t, openPostgres(t))
	})
}

// queryCounter counts the statements a Store sends.
type queryCounter struct{ n atomic.Int64 }

func (c *queryCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *queryCounter) AfterQuery(context.Context, *bun.QueryEvent) {}

// TestListQueryCounts: lists cost the count and the page, whatever the
// page size, the scope and the filters; set lookups cost one query.
func TestListQueryCounts(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		st := New(db)
		if err := st.Migrate(ctx); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
		u := &domain.User{Username: "alice", Email: "alice@example.com"}
		if err := st.Users().Create(ctx, u); err != nil {
			t.Fatal(err)
		}
		g := &domain.Namespace{Kind: domain.NamespaceGroup, Name: "G", Path: "g", Visibility: domain.Public}
		if err := st.Namespaces().Create(ctx, g); err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for i := range 30 {
			p := &domain.Project{NamespaceID: g.ID, Name: fmt.Sprint("p", i), Path: fmt.Sprint("p", i), Visibility: domain.Visibility([]string{"public", "internal", "private"}[i%3])}
			if err := st.Projects().Create(ctx, p); err != nil {
				t.Fatal(err)
			}
			if _, err := st.Projects().Star(ctx, u.ID, p.ID); err != nil {
				t.Fatal(err)
			}
			if err := st.Events().Create(ctx, &domain.Event{ProjectID: &p.ID, AuthorID: u.ID, Action: domain.ActionCreated}); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
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
		scope := domain.ReadScope{Internal: true, ProjectIDs: ids[:7], NamespaceIDs: []int64{g.ID + 1}}
		for _, per := range []int{0, 1, 5, 100} {
			count(fmt.Sprintf("ProjectStore.List per page %d", per), 2, func() error {
				ps, n, err := st.Projects().List(ctx, domain.ProjectFilter{
					Readable: scope, StarredBy: u.ID, Search: "p", WithIssuesEnabled: false,
					OrderBy: domain.OrderByName, Page: domain.Page{Page: 1, PerPage: per},
				})
				if err == nil && (n != 22 || (per > 0 && len(ps) != min(per, 22))) {
					err = fmt.Errorf("got %d of %d", len(ps), n)
				}
				return err
			})
			count(fmt.Sprintf("EventStore.List per page %d", per), 2, func() error {
				_, n, err := st.Events().List(ctx, domain.EventFilter{Readable: scope, Page: domain.Page{Page: 1, PerPage: per}})
				if err == nil && n != 22 {
					err = fmt.Errorf("total %d", n)
				}
				return err
			})
			count(fmt.Sprintf("ListGroups per page %d", per), 2, func() error {
				_, _, err := st.Namespaces().ListGroups(ctx, domain.GroupFilter{Search: "g", Page: domain.Page{Page: 1, PerPage: per}})
				return err
			})
		}
		count("Starred", 1, func() error { _, err := st.Projects().Starred(ctx, u.ID, ids); return err })
		count("GetMany", 1, func() error { _, err := st.Projects().GetMany(ctx, ids); return err })
		count("Descendants", 1, func() error { _, err := st.Namespaces().Descendants(ctx, []int64{g.ID, 5, 6}); return err })
		count("AncestorIDs", 1, func() error { _, err := st.Namespaces().AncestorIDs(ctx, []int64{g.ID, 5, 6}); return err })
		count("Ancestors", 1, func() error { _, err := st.Namespaces().Ancestors(ctx, g.ID); return err })
		count("OfProjects", 1, func() error { _, err := st.Namespaces().OfProjects(ctx, ids); return err })
		count("GetByFullPath", 1, func() error { _, err := st.Projects().GetByFullPath(ctx, "G/P7"); return err })
		count("InSources", 1, func() error {
			_, err := st.Members().InSources(ctx, u.ID, domain.MemberOfGroup, []int64{1, 2, 3})
			return err
		})
	})
}

// TestMigrationBackfillsPersonalNamespaces: users created before the
// projects migration get a public personal namespace named after them.
func TestMigrationBackfillsPersonalNamespaces(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, db *bun.DB) {
		ctx := t.Context()
		st := New(db)
		// Apply only the migrations before the projects one.
		old := fstest.MapFS{}
		names, err := fs.Glob(migrationFiles, "migrations/*.sql")
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			base := strings.TrimPrefix(name, "migrations/")
			if base >= "0003" {
				continue
			}
			src, err := fs.ReadFile(migrationFiles, name)
			if err != nil {
				t.Fatal(err)
			}
			old[base] = &fstest.MapFile{Data: src}
		}
		ms := migrate.NewMigrations()
		if err := ms.Discover(old); err != nil {
			t.Fatal(err)
		}
		if err := st.migrateWith(ctx, ms); err != nil {
			t.Fatalf("old migrations: %v", err)
		}
		alice := &domain.User{Username: "Alice", Name: "Alice Liddell", Email: "alice@example.com"}
		nameless := &domain.User{Username: "nameless", Email: "n@example.com"}
		for _, u := range []*domain.User{alice, nameless} {
			// The user store of today writes columns the old schema has.
			if _, err := db.NewInsert().Model(newUserRow(u)).ExcludeColumn("id").Exec(ctx); err != nil {
				t.Fatalf("insert user: %v", err)
			}
		}
		if err := db.NewSelect().Model((*userRow)(nil)).Column("id").Where("username = ?", "Alice").Scan(ctx, &alice.ID); err != nil {
			t.Fatal(err)
		}
		if err := st.Migrate(ctx); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
		ns, err := st.Namespaces().ForUser(ctx, alice.ID)
		if err != nil {
			t.Fatalf("ForUser: %v", err)
		}
		if ns.Kind != domain.NamespaceUser || ns.Path != "Alice" || ns.FullPath != "Alice" || ns.Name != "Alice Liddell" ||
			ns.Visibility != domain.Public || ns.ParentID != nil || ns.OwnerID == nil || *ns.OwnerID != alice.ID {
			t.Errorf("backfilled namespace: %+v", ns)
		}
		n2, err := st.Namespaces().GetByFullPath(ctx, "NAMELESS")
		if err != nil || n2.Name != "nameless" {
			t.Errorf("namespace of a user without a name: %+v, %v; want it named after the username", n2, err)
		}
		// The backfilled path is taken like any other.
		err = st.Namespaces().Create(ctx, &domain.Namespace{Kind: domain.NamespaceGroup, Name: "x", Path: "alice", Visibility: domain.Public})
		if err == nil {
			t.Error("a group took a backfilled user path")
		}
	})
}
