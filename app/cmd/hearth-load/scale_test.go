package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// TestSeedScale seeds a small scale set on a real in-process Hearth and
// checks that every scale endpoint answers and that the member token sees
// the memberships the comparisons rely on.
func TestSeedScale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := options{data: t.TempDir(), backend: "gitcli", scale: true}
	repo, err := cachedRepo(ctx, o.data, shape{Commits: 30, Branches: 2, Tags: 2})
	if err != nil {
		t.Fatal(err)
	}
	long, err := cachedRepo(ctx, o.data, shape{Commits: 60, Branches: 2, Tags: 2})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.stop(); err != nil {
			t.Error(err)
		}
	})
	root := api{base: srv.url + "/api/v4", token: srv.token, http: newClient(16, 30*time.Second)}
	sh := scaleShape{Depth: 3, Members: 5, Commits: 60}
	set, err := seedScale(ctx, root, repo, long, srv.repoDir, sh)
	if err != nil {
		t.Fatal(err)
	}

	targets, comps := scaleEndpoints(root.base, set, sh, 30)
	if len(targets) != 10 || len(comps) != 6 {
		t.Fatalf("%d targets, %d comparisons; want 10 and 6", len(targets), len(comps))
	}
	for _, tg := range targets {
		if err := send(ctx, root.http, tg); err != nil {
			t.Errorf("%s: %v", tg.Name, err)
		}
	}

	member := api{base: root.base, token: set.Token, http: root.http}
	type access struct {
		AccessLevel int `json:"access_level"`
	}
	var p struct {
		Namespace struct {
			FullPath string `json:"full_path"`
		}
		Permissions struct {
			Project *access `json:"project_access"`
			Group   *access `json:"group_access"`
		}
	}
	for _, c := range []struct {
		id             int64
		project, group int
		path           string
	}{
		{set.Plain, 30, 0, "root"},
		{set.Deep, 0, 30, "scale-01/scale-02/scale-03"},
		{set.Crowded, 30, 0, "root"},
		{set.History, 30, 0, "root"},
	} {
		p.Permissions.Project, p.Permissions.Group = nil, nil
		if err := member.call(ctx, "GET", fmt.Sprintf("/projects/%d", c.id), nil, 200, &p); err != nil {
			t.Fatal(err)
		}
		level := func(a *access) int {
			if a == nil {
				return 0
			}
			return a.AccessLevel
		}
		if p.Namespace.FullPath != c.path {
			t.Errorf("project %d in %q, want %q", c.id, p.Namespace.FullPath, c.path)
		}
		if level(p.Permissions.Project) != c.project || level(p.Permissions.Group) != c.group {
			t.Errorf("project %d: member's access project %d group %d, want %d and %d",
				c.id, level(p.Permissions.Project), level(p.Permissions.Group), c.project, c.group)
		}
	}
	var members []struct{ Username string }
	if err := root.call(ctx, "GET", fmt.Sprintf("/projects/%d/members?per_page=100", set.Crowded), nil, 200, &members); err != nil {
		t.Fatal(err)
	}
	// The seeded members and root, whose namespace holds the project (its
	// owner is made a master, as GitLab does).
	if len(members) != sh.Members+1 {
		t.Errorf("crowded project has %d members, want %d", len(members), sh.Members+1)
	}
	var commits []struct{ ID string }
	req := fmt.Sprintf("/projects/%d/repository/commits?per_page=100", set.History)
	if err := member.call(ctx, "GET", req, nil, 200, &commits); err != nil {
		t.Fatal(err)
	}
	if len(commits) < 50 { // master's history: 60 less the feature branch's own
		t.Errorf("history project's master has %d commits, want the long repository", len(commits))
	}
}

func TestPrintRatios(t *testing.T) {
	t.Parallel()
	names := []string{"base", "cheap", "dear", "lonely"}
	rows := []stats{
		{Rate: 100, P50: 10 * time.Millisecond, P90: 20 * time.Millisecond},
		{Rate: 90, P50: 11 * time.Millisecond, P90: 22 * time.Millisecond},
		{Rate: 50, P50: 20 * time.Millisecond, P90: 80 * time.Millisecond},
		{Rate: 1},
	}
	comps := []comparison{
		{Name: "cheap / base", Base: "base", Other: "cheap"},
		{Name: "dear / base", Base: "base", Other: "dear"},
		{Name: "missing / base", Base: "base", Other: "missing"}, // left out by --only
	}
	var b bytes.Buffer
	printRatios(&b, comps, names, rows, false)
	out := b.String()
	for _, want := range []string{
		"| cheap / base | 90 | 100 | 1.10 | 1.10 | 1.11 | yes |",
		"| dear / base | 50 | 100 | 2.00 | 4.00 | 2.00 | no |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("closed loop: no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "missing") {
		t.Errorf("closed loop: a comparison of an endpoint not driven:\n%s", out)
	}
	b.Reset()
	printRatios(&b, comps, names, rows, true) // open loop: the cost is the p90 ratio
	if want := "| dear / base | 50 | 100 | 2.00 | 4.00 | 4.00 | no |"; !strings.Contains(b.String(), want) {
		t.Errorf("open loop: no %q in\n%s", want, b.String())
	}
	if r := ratio(1, 0); !math.IsInf(r, 1) || ratio(0, 0) != 1 {
		t.Errorf("ratio(1, 0) = %v, ratio(0, 0) = %v", r, ratio(0, 0))
	}
}
