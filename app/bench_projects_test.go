package app_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// seedProjects creates n projects in a group straight through the stores
// (the API would also create n repositories), and makes member a developer
// of every step-th one.
func seedProjects(tb testing.TB, srv *apptest.Server, n, step int, member int64) {
	tb.Helper()
	ctx := context.Background()
	ns := &domain.Namespace{Kind: domain.NamespaceGroup, Name: "Bench", Path: "bench", Visibility: domain.Private}
	if err := srv.Store.Namespaces().Create(ctx, ns); err != nil {
		tb.Fatal(err)
	}
	now := time.Now().UTC()
	err := srv.Store.Tx().WithinTx(ctx, func(ctx context.Context) error {
		for i := 0; i < n; i++ {
			p := &domain.Project{NamespaceID: ns.ID, Name: fmt.Sprintf("Project %05d", i), Path: fmt.Sprintf("project-%05d", i),
				Visibility: domain.Private, DefaultBranch: "master", CreatorID: 1, IssuesEnabled: true, MergeRequestsEnabled: true,
				ImportStatus: domain.ImportNone, CreatedAt: now.Add(time.Duration(i) * time.Second), LastActivityAt: now}
			if err := srv.Store.Projects().Create(ctx, p); err != nil {
				return err
			}
			if member != 0 && i%step == 0 {
				if err := srv.Store.Members().Add(ctx, &domain.Member{Source: domain.MemberOfProject, SourceID: p.ID,
					UserID: member, AccessLevel: domain.Developer, CreatedAt: now, CreatedBy: 1}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkListProjects100 is GET /projects?per_page=100 among 10,000
// private projects, for an administrator and for a user who is a member of
// 100 of them, on both storage drivers.
func BenchmarkListProjects100(b *testing.B) {
	for _, driver := range []string{"sqlite", "postgres"} {
		b.Run(driver, func(b *testing.B) {
			srv := apptest.New(b, apptest.Driver(driver), quietLogs())
			id, tok := createUser(b, srv, "bench-member")
			seedProjects(b, srv, 10000, 100, id)
			b.Run("admin", func(b *testing.B) { benchGETAs(b, srv, "/projects?per_page=100", srv.RootToken) })
			b.Run("member-of-100", func(b *testing.B) { benchGETAs(b, srv, "/projects?per_page=100", tok) })
		})
	}
}

// TestProjectListQueryCount: listing projects costs a constant number of
// queries, whatever the page holds.
func TestProjectListQueryCount(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t)
	id, tok := createUser(t, srv, "counted")
	seedProjects(t, srv, 300, 2, id)
	count := func(path, token string) int64 {
		before := srv.Queries()
		srv.JSON(t, "GET", path, token, nil, 200, nil)
		return srv.Queries() - before
	}
	for _, token := range []string{srv.RootToken, tok} {
		one := count("/projects?per_page=1", token)
		hundred := count("/projects?per_page=100", token)
		// What a page embeds (owners, shares, fork sources) costs one
		// query per kind, never one per project.
		if hundred > one+2 {
			t.Errorf("GET /projects: %d queries for 1 project, %d for 100", one, hundred)
		}
		if hundred > 12 {
			t.Errorf("GET /projects?per_page=100 ran %d queries", hundred)
		}
		t.Logf("GET /projects?per_page=100: %d queries", hundred)
	}
}
