package contracttests

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/ports"
)

// Repo is what a git backend hands RunRepoSuite: the backend over an empty
// root, and that root, where repository "a/b.git" must live at Root/a/b.git
// as a bare repository.
type Repo struct {
	Backend ports.RepoBackend
	Root    string
}

// RunRepoSuite checks that a git backend behaves as ports.RepoBackend
// documents, against real repositories read with the git CLI. Each subtest
// calls newRepo for a backend over a fresh, empty root (a t.TempDir()).
// The subtests run in parallel (t.Parallel), so newRepo is called from
// several goroutines at once.
func RunRepoSuite(t *testing.T, newRepo func(t *testing.T) Repo) {
	tests := []struct {
		name string
		fn   func(t *testing.T, r Repo)
	}{
		{"CreateExistsHead", repoCreateExistsHead},
		{"CreateDefaultBranchMaster", repoCreateDefaultMaster},
		{"CreateNestedNames", repoCreateNestedNames},
		{"CreateTwiceConflict", repoCreateTwice},
		{"CreateInvalidBranch", repoCreateInvalidBranch},
		{"ExistsMissing", repoExistsMissing},
		{"DeleteIdempotent", repoDeleteIdempotent},
		{"ForkCopiesRefsAndObjects", repoForkCopies},
		{"ForkIsIndependent", repoForkIndependent},
		{"ForkEmptyKeepsHead", repoForkEmpty},
		{"ForkMissingSource", repoForkMissing},
		{"ForkExistingDestination", repoForkExistingDst},
		{"Stats", repoStats},
		{"StatsEmpty", repoStatsEmpty},
		{"StatsInvalidRef", repoStatsInvalidRef},
		{"StatsMissingRepo", repoStatsMissing},
		{"HostileNames", repoHostileNames},
		{"NoLeftovers", repoNoLeftovers},
		{"ConcurrentCreateSameName", repoConcurrentCreate},
		{"ConcurrentForks", repoConcurrentForks},
		{"ReadDefaultBranch", repoReadDefaultBranch},
		{"ReadResolve", repoReadResolve},
		{"ReadBranches", repoReadBranches},
		{"ReadTags", repoReadTags},
		{"ReadCommit", repoReadCommit},
		{"ReadLog", repoReadLog},
		{"ReadCommitStats", repoReadCommitStats},
		{"ReadTree", repoReadTree},
		{"ReadFile", repoReadFile},
		{"ReadBlob", repoReadBlob},
		{"ReadMergeBase", repoReadMergeBase},
		{"ReadMergedBranches", repoReadMergedBranches},
		{"ReadContributors", repoReadContributors},
		{"Diff", repoDiff},
		{"Archive", repoArchive},
		{"UpdateRef", repoUpdateRef},
		{"CommitFiles", repoCommitFiles},
		{"ConcurrentCommitFiles", repoConcurrentCommitFiles},
		{"CreateTag", repoCreateTag},
		{"Merge", repoMerge},
		{"CherryPick", repoCherryPick},
		{"TransportErrors", repoTransportErrors},
		{"TransportAdvertise", repoTransportAdvertise},
		{"TransportClonePushFetch", repoTransportClonePushFetch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newRepo(t))
		})
	}
}

// repoPath is where the suite expects repo on disk.
func repoPath(r Repo, repo string) string {
	return filepath.Join(r.Root, filepath.FromSlash(repo))
}

func repoCreate(t *testing.T, r Repo, repo, branch string) {
	t.Helper()
	if err := r.Backend.Create(t.Context(), repo, branch); err != nil {
		t.Fatalf("Create(%q, %q): %v", repo, branch, err)
	}
}

// repoSeeded creates repo with HEAD on main and pushes the suite's history.
func repoSeeded(t *testing.T, r Repo, g repoGit, repo string) {
	t.Helper()
	repoCreate(t, r, repo, "main")
	g.seedHistory(repoPath(r, repo))
}

func repoExists(t *testing.T, r Repo, repo string) bool {
	t.Helper()
	ok, err := r.Backend.Exists(t.Context(), repo)
	if err != nil {
		t.Fatalf("Exists(%q): %v", repo, err)
	}
	return ok
}

func repoHead(t *testing.T, r Repo, repo string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoPath(r, repo), "HEAD"))
	if err != nil {
		t.Fatalf("read HEAD of %s: %v", repo, err)
	}
	return string(b)
}

func repoWantErr(t *testing.T, what string, err, kind error) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Errorf("%s: got error %v, want %v", what, err, kind)
	}
}

func repoCreateExistsHead(t *testing.T, r Repo) {
	g := newRepoGit(t)
	if repoExists(t, r, "projects/1.git") {
		t.Fatal("Exists before Create = true")
	}
	repoCreate(t, r, "projects/1.git", "main")
	if !repoExists(t, r, "projects/1.git") {
		t.Fatal("Exists after Create = false")
	}
	if got, want := repoHead(t, r, "projects/1.git"), "ref: refs/heads/main\n"; got != want {
		t.Errorf("HEAD = %q, want %q", got, want)
	}
	path := repoPath(r, "projects/1.git")
	if got := g.bare(path, "rev-parse", "--is-bare-repository"); got != "true" {
		t.Errorf("is-bare-repository = %q", got)
	}
	if got := g.refs(path); got != "" {
		t.Errorf("new repository has refs: %q", got)
	}
	g.fsck(path)
	// The new repository accepts a push and shows it.
	g.seedHistory(path)
	if got := g.bare(path, "rev-list", "--count", "main"); got != "3" {
		t.Errorf("commits on main after push = %s, want 3", got)
	}
}

func repoCreateDefaultMaster(t *testing.T, r Repo) {
	repoCreate(t, r, "projects/2.git", "")
	if got, want := repoHead(t, r, "projects/2.git"), "ref: refs/heads/master\n"; got != want {
		t.Errorf("HEAD = %q, want %q", got, want)
	}
}

func repoCreateNestedNames(t *testing.T, r Repo) {
	for _, tc := range []struct{ repo, branch string }{
		{"top.git", "trunk"},
		{"a/b/c/d.git", "release/1.0"},
		{"projects/7.wiki.git", "main"},
		{"group/sub-group/my_project.git", "feature-x"},
	} {
		repoCreate(t, r, tc.repo, tc.branch)
		if got, want := repoHead(t, r, tc.repo), "ref: refs/heads/"+tc.branch+"\n"; got != want {
			t.Errorf("%s: HEAD = %q, want %q", tc.repo, got, want)
		}
	}
}

func repoCreateTwice(t *testing.T, r Repo) {
	g := newRepoGit(t)
	repoSeeded(t, r, g, "projects/1.git")
	before := g.refs(repoPath(r, "projects/1.git"))
	repoWantErr(t, "second Create", r.Backend.Create(t.Context(), "projects/1.git", "other"), core.ErrConflict)
	if got := g.refs(repoPath(r, "projects/1.git")); got != before {
		t.Errorf("refs changed by a refused Create:\n%s\nwant\n%s", got, before)
	}
	if got := repoHead(t, r, "projects/1.git"); got != "ref: refs/heads/main\n" {
		t.Errorf("HEAD changed by a refused Create: %q", got)
	}
}

func repoCreateInvalidBranch(t *testing.T, r Repo) {
	for _, branch := range []string{
		"-x", "--bare", "a..b", "HEAD", "@{-1}", "@", "a b", "a~1", "a^", "a:b", "x.lock",
		"refs/heads/../x", "/a", "a/", "a//b", "a\x00b", "a\nb", "a\\b", "*", "a?",
	} {
		err := r.Backend.Create(t.Context(), "projects/1.git", branch)
		repoWantErr(t, "Create with branch "+quote(branch), err, core.ErrInvalid)
		if repoExists(t, r, "projects/1.git") {
			t.Fatalf("Create with branch %q left a repository", branch)
		}
	}
}

func repoExistsMissing(t *testing.T, r Repo) {
	if repoExists(t, r, "projects/404.git") {
		t.Error("Exists of a missing repository = true")
	}
	if repoExists(t, r, "nowhere/deep/404.git") {
		t.Error("Exists under a missing directory = true")
	}
}

func repoDeleteIdempotent(t *testing.T, r Repo) {
	g := newRepoGit(t)
	ctx := t.Context()
	if err := r.Backend.Delete(ctx, "projects/1.git"); err != nil {
		t.Fatalf("Delete of a missing repository: %v", err)
	}
	repoSeeded(t, r, g, "projects/1.git")
	if err := r.Backend.Delete(ctx, "projects/1.git"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if repoExists(t, r, "projects/1.git") {
		t.Error("Exists after Delete = true")
	}
	if _, err := os.Lstat(repoPath(r, "projects/1.git")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("repository directory after Delete: %v", err)
	}
	if err := r.Backend.Delete(ctx, "projects/1.git"); err != nil {
		t.Fatalf("second Delete: %v", err)
	}
	// The name is free again, for an empty repository.
	repoCreate(t, r, "projects/1.git", "main")
	if got := g.refs(repoPath(r, "projects/1.git")); got != "" {
		t.Errorf("recreated repository has refs: %q", got)
	}
}

func repoStats(t *testing.T, r Repo) {
	g := newRepoGit(t)
	repoSeeded(t, r, g, "projects/1.git")
	for _, tc := range []struct {
		ref  string
		want int
	}{
		{"main", 3},
		{"feature", 4},
		{"", 3}, // HEAD
		{"nope", 0},
		{"v1.0", 0}, // a tag, not a branch
		{"merge-requests/1/head", 0},
	} {
		size, commits, err := r.Backend.Stats(t.Context(), "projects/1.git", tc.ref)
		if err != nil {
			t.Fatalf("Stats(%q): %v", tc.ref, err)
		}
		if commits != tc.want {
			t.Errorf("Stats(%q) commits = %d, want %d", tc.ref, commits, tc.want)
		}
		if size <= 0 {
			t.Errorf("Stats(%q) size = %d, want > 0", tc.ref, size)
		}
	}
}

func repoStatsEmpty(t *testing.T, r Repo) {
	repoCreate(t, r, "projects/1.git", "main")
	for _, ref := range []string{"main", "", "other"} {
		size, commits, err := r.Backend.Stats(t.Context(), "projects/1.git", ref)
		if err != nil {
			t.Fatalf("Stats(%q) of an empty repository: %v", ref, err)
		}
		if commits != 0 || size <= 0 {
			t.Errorf("Stats(%q) of an empty repository = %d bytes, %d commits; want > 0, 0", ref, size, commits)
		}
	}
}

func repoStatsInvalidRef(t *testing.T, r Repo) {
	g := newRepoGit(t)
	repoSeeded(t, r, g, "projects/1.git")
	for _, ref := range []string{"-x", "--all", "main~1", "main^", "main..feature", "@{-1}", "HEAD", "main:README", "a\x00b", "main\n"} {
		_, _, err := r.Backend.Stats(t.Context(), "projects/1.git", ref)
		repoWantErr(t, "Stats with ref "+quote(ref), err, core.ErrInvalid)
	}
}

func repoStatsMissing(t *testing.T, r Repo) {
	_, _, err := r.Backend.Stats(t.Context(), "projects/404.git", "main")
	repoWantErr(t, "Stats of a missing repository", err, core.ErrNotFound)
}

// repoNoLeftovers checks that finished operations, failed ones included,
// leave nothing but repositories next to the repositories.
func repoNoLeftovers(t *testing.T, r Repo) {
	g := newRepoGit(t)
	ctx := t.Context()
	repoSeeded(t, r, g, "projects/1.git")
	repoCreate(t, r, "projects/2.git", "main")
	if err := r.Backend.Fork(ctx, "projects/1.git", "projects/3.git"); err != nil {
		t.Fatal(err)
	}
	_ = r.Backend.Fork(ctx, "projects/1.git", "projects/2.git")   // conflict
	_ = r.Backend.Fork(ctx, "projects/404.git", "projects/4.git") // not found
	_ = r.Backend.Create(ctx, "projects/1.git", "main")           // conflict
	_ = r.Backend.Create(ctx, "projects/5.git", "-x")             // invalid
	if err := r.Backend.Delete(ctx, "projects/2.git"); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(r.Root, "projects"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if got, want := quote(names), quote([]string{"1.git", "3.git"}); got != want {
		t.Errorf("projects/ holds %s, want %s", got, want)
	}
}

func repoConcurrentCreate(t *testing.T, r Repo) {
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = r.Backend.Create(t.Context(), "projects/1.git", "main") })
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, core.ErrConflict):
			t.Errorf("concurrent Create: %v, want nil or ErrConflict", err)
		}
	}
	if won != 1 {
		t.Errorf("%d concurrent Creates succeeded, want exactly 1", won)
	}
	newRepoGit(t).fsck(repoPath(r, "projects/1.git"))
}
