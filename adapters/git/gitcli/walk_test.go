package gitcli

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// importRepo makes root/projects/<name>.git from a fast-import stream.
func importRepo(t *testing.T, root, name, stream string) string {
	t.Helper()
	repo := "projects/" + name + ".git"
	dir := filepath.Join(root, filepath.FromSlash(repo))
	CleanGit(t, root, "init", "--quiet", "--bare", "--template=", "--initial-branch=main", dir)
	cmd := exec.CommandContext(t.Context(), "git", "-C", dir, "fast-import", "--quiet")
	cmd.Env = []string{"PATH=" + filepath.Dir(mustGit(t)), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}
	cmd.Stdin = strings.NewReader(stream)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v: %s", err, out)
	}
	return repo
}

func mustGit(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// commitCmd is one fast-import commit on ref with the given mark, date and
// parents (marks).
func commitCmd(ref string, mark int, date int64, parents ...int) string {
	var s strings.Builder
	fmt.Fprintf(&s, "commit %s\nmark :%d\n", ref, mark)
	fmt.Fprintf(&s, "committer C <c@example.com> %d +0000\n", date)
	msg := fmt.Sprintf("commit %d", mark)
	fmt.Fprintf(&s, "data %d\n%s\n", len(msg), msg)
	for i, p := range parents {
		if i == 0 {
			fmt.Fprintf(&s, "from :%d\n", p)
		} else {
			fmt.Fprintf(&s, "merge :%d\n", p)
		}
	}
	fmt.Fprintf(&s, "M 100644 inline f%d\ndata 2\n%d\n\n", mark%7, mark%10)
	return s.String()
}

// linearStream is n linear commits on main plus branches spread over them.
func linearStream(n, branches int) string {
	var s strings.Builder
	for i := 1; i <= n; i++ {
		if i == 1 {
			s.WriteString(commitCmd("refs/heads/main", i, 1500000000+int64(i)*60))
		} else {
			s.WriteString(commitCmd("refs/heads/main", i, 1500000000+int64(i)*60, i-1))
		}
	}
	for i := 0; i < branches; i++ {
		fmt.Fprintf(&s, "reset refs/heads/b%d\nfrom :%d\n\n", i, 1+i*(n-1)/branches)
	}
	return s.String()
}

// TestWalkLogMatchesRevList checks the cat-file walk lists every page as
// rev-list does, on a history with merges, equal dates and a clock skewed
// backwards (a parent newer than its child).
func TestWalkLogMatchesRevList(t *testing.T) {
	t.Parallel()
	b, root := NewTestBackend(t)
	var s strings.Builder
	const d = 1500000000
	s.WriteString(commitCmd("refs/heads/main", 1, d))
	s.WriteString(commitCmd("refs/heads/main", 2, d+100, 1))
	s.WriteString(commitCmd("refs/heads/side", 3, d+100, 1))
	s.WriteString(commitCmd("refs/heads/side", 4, d+5000, 3)) // skewed: newer than the merge below
	s.WriteString(commitCmd("refs/heads/main", 5, d+200, 2))
	s.WriteString(commitCmd("refs/heads/main", 6, d+200, 5, 4))
	s.WriteString(commitCmd("refs/heads/other", 7, d+150, 2))
	s.WriteString(commitCmd("refs/heads/main", 8, d+150, 6, 7))
	for i := 9; i < 40; i++ {
		s.WriteString(commitCmd("refs/heads/main", i, d+int64(300+i%5*10), i-1))
	}
	repo := importRepo(t, root, "walk", s.String())
	dir := filepath.Join(root, filepath.FromSlash(repo))
	all := strings.Fields(CleanGit(t, dir, "rev-list", "main"))
	for skip := 0; skip <= len(all); skip += 3 {
		for _, limit := range []int{1, 2, 5, 20} {
			got, err := b.Log(t.Context(), repo, domain.LogQuery{Ref: "main", Skip: skip, Limit: limit})
			if err != nil {
				t.Fatal(err)
			}
			want := all[min(skip, len(all)):min(skip+limit, len(all))]
			ids := make([]string, 0, len(got))
			for _, c := range got {
				ids = append(ids, c.ID)
			}
			if strings.Join(ids, " ") != strings.Join(want, " ") {
				t.Fatalf("skip %d limit %d:\n got %v\nwant %v", skip, limit, ids, want)
			}
		}
	}
}

// TestListReadsDoNotGrowWithHistory pins the git cost of what the branch
// list and the first page of commits read: once the merged flags are known
// they start no git process at all, on a short history as on a long one,
// and the first read starts as many on both.
func TestListReadsDoNotGrowWithHistory(t *testing.T) {
	t.Parallel()
	b, root := NewTestBackend(t)
	ctx := t.Context()
	read := func(repo string) {
		t.Helper()
		branches, err := b.Branches(ctx, repo)
		if err != nil || len(branches) != 6 {
			t.Fatalf("branches: %d, %v", len(branches), err)
		}
		head, err := b.Resolve(ctx, repo, "main")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.MergedBranches(ctx, repo, head); err != nil {
			t.Fatal(err)
		}
		page, err := b.Log(ctx, repo, domain.LogQuery{Ref: head, Limit: 20})
		if err != nil || len(page) != 20 {
			t.Fatalf("log: %d, %v", len(page), err)
		}
		// The files API's last commit of a path.
		f, err := b.File(ctx, repo, "main", "f3")
		if err != nil || f.LastCommitID == "" {
			t.Fatalf("file: %+v, %v", f, err)
		}
	}
	cost := func(repo string) (cold, warm int64) {
		before := b.runs.Load()
		read(repo)
		cold = b.runs.Load() - before
		before = b.runs.Load()
		read(repo)
		return cold, b.runs.Load() - before
	}
	small := importRepo(t, root, "small", linearStream(50, 5))
	large := importRepo(t, root, "large", linearStream(3000, 5))
	smallCold, smallWarm := cost(small)
	largeCold, largeWarm := cost(large)
	if smallWarm != 0 || largeWarm != 0 {
		t.Errorf("warm reads started %d (small) and %d (large) git processes, want 0", smallWarm, largeWarm)
	}
	if smallCold != largeCold {
		t.Errorf("cold reads started %d git processes on 50 commits, %d on 3,000", smallCold, largeCold)
	}

	// A branch moved past main is no longer merged, at once: its new head
	// is a new key.
	dir := filepath.Join(root, filepath.FromSlash(small))
	head := CleanGit(t, dir, "rev-parse", "main")
	ahead := CleanGit(t, dir, "commit-tree", "-p", head, "-m", "ahead", head+"^{tree}")
	CleanGit(t, dir, "update-ref", "refs/heads/b0", ahead)
	merged, err := b.MergedBranches(ctx, small, head)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(merged, " ") != "b1 b2 b3 b4 main" {
		t.Errorf("merged after moving b0: %v", merged)
	}

	// A commit on main touching f3 is its last commit at once, and one
	// that does not leaves it: the cached answer is keyed by the commit
	// read at.
	a := domain.Signature{Name: "a", Email: "a@example.com", When: time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)}
	before, err := b.File(ctx, small, "main", "f3")
	if err != nil {
		t.Fatal(err)
	}
	other, err := b.CommitFiles(ctx, small, domain.CommitFiles{Branch: "main", Message: "f4", Author: a, Committer: a,
		Actions: []domain.FileAction{{Action: domain.FileUpdate, Path: "f4", Content: []byte("new\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	if f, err := b.File(ctx, small, "main", "f3"); err != nil || f.CommitID != other.ID || f.LastCommitID != before.LastCommitID {
		t.Errorf("after a commit to f4: %+v, %v; want last commit %s", f, err, before.LastCommitID)
	}
	touch, err := b.CommitFiles(ctx, small, domain.CommitFiles{Branch: "main", Message: "f3", Author: a, Committer: a,
		Actions: []domain.FileAction{{Action: domain.FileUpdate, Path: "f3", Content: []byte("new\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	if f, err := b.File(ctx, small, "main", "f3"); err != nil || f.LastCommitID != touch.ID {
		t.Errorf("after a commit to f3: last commit %s, %v; want %s", f.LastCommitID, err, touch.ID)
	}
}
