package gitcli_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/hearth-forge/hearth/adapters/git/gitcli"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// seeded makes projects/1.git with a small history pushed by plain git:
// main has 3 commits (README, dir/a.txt, dir/sub/b.txt), feature one more,
// an annotated tag v1 on main~1 and a lightweight tag light on main.
func seeded(t *testing.T) (*gitcli.Backend, string, map[string]string) {
	t.Helper()
	b, root := gitcli.NewTestBackend(t)
	if err := b.Create(t.Context(), "projects/1.git", "main"); err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(root, "projects", "1.git")
	work := t.TempDir()
	gitcli.CleanGit(t, work, "init", "--quiet", "--template=", "--initial-branch=main")
	ids := map[string]string{}
	commit := func(name, file, content string) {
		writeFile(t, filepath.Join(work, file), content, 0o644)
		gitcli.CleanGit(t, work, "add", "--", file)
		gitcli.CleanGit(t, work, "commit", "--quiet", "-m", name+"\n\nbody of "+name)
		ids[name] = gitcli.CleanGit(t, work, "rev-parse", "HEAD")
	}
	commit("c1", "README", "one\n")
	commit("c2", "dir/a.txt", "a\n")
	gitcli.CleanGit(t, work, "tag", "-a", "-m", "version one", "v1")
	commit("c3", "dir/sub/b.txt", "b\n")
	gitcli.CleanGit(t, work, "tag", "light")
	gitcli.CleanGit(t, work, "checkout", "--quiet", "-b", "feature")
	commit("f1", "README", "feature\n")
	ids["v1"] = gitcli.CleanGit(t, work, "rev-parse", "v1")
	gitcli.CleanGit(t, work, "push", "--quiet", bare, "refs/heads/*:refs/heads/*", "refs/tags/*:refs/tags/*")
	return b, bare, ids
}

func TestReads(t *testing.T) {
	t.Parallel()
	b, _, ids := seeded(t)
	ctx := t.Context()
	const repo = "projects/1.git"

	if got, err := b.DefaultBranch(ctx, repo); err != nil || got != "main" {
		t.Errorf("DefaultBranch = %q, %v", got, err)
	}
	for rev, want := range map[string]string{
		"main": ids["c3"], "feature": ids["f1"], "v1": ids["c2"], "light": ids["c3"],
		"refs/heads/main": ids["c3"], ids["c1"]: ids["c1"], ids["c1"][:7]: ids["c1"], "HEAD": ids["c3"],
	} {
		if got, err := b.Resolve(ctx, repo, rev); err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", rev, got, err, want)
		}
	}
	for _, rev := range []string{"nope", "0000000", "refs/heads/nope"} {
		if _, err := b.Resolve(ctx, repo, rev); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("Resolve(%q) = %v, want ErrNotFound", rev, err)
		}
	}
	for _, rev := range []string{"-x", "--all", "main~1", "main^", "a..b", "@{-1}", "main:README", "a\x00b", ""} {
		if _, err := b.Resolve(ctx, repo, rev); !errors.Is(err, core.ErrInvalid) {
			t.Errorf("Resolve(%q) = %v, want ErrInvalid", rev, err)
		}
	}
	if _, err := b.Resolve(ctx, "projects/404.git", "main"); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("Resolve in a missing repository = %v", err)
	}

	c, err := b.Commit(ctx, repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != ids["c3"] || len(c.ParentIDs) != 1 || c.ParentIDs[0] != ids["c2"] ||
		c.Message != "c3\n\nbody of c3\n" || c.Author.Name != "t" || c.Author.Email != "t@example.com" || c.Title() != "c3" {
		t.Errorf("Commit = %+v", c)
	}

	branches, err := b.Branches(ctx, repo)
	if err != nil || len(branches) != 2 || branches[0].Name != "feature" || branches[1].Name != "main" ||
		branches[1].Commit.ID != ids["c3"] || branches[1].Commit.Message != c.Message {
		t.Errorf("Branches = %+v, %v", branches, err)
	}
	if br, err := b.Branch(ctx, repo, "feature"); err != nil || br.Commit.ID != ids["f1"] {
		t.Errorf("Branch = %+v, %v", br, err)
	}
	if _, err := b.Branch(ctx, repo, "nope"); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("Branch(nope) = %v", err)
	}
	tags, err := b.Tags(ctx, repo)
	if err != nil || len(tags) != 2 || tags[0].Name != "light" || tags[0].Message != nil || tags[0].Commit.ID != ids["c3"] ||
		tags[1].Name != "v1" || tags[1].Message == nil || *tags[1].Message != "version one" ||
		tags[1].TargetID != ids["v1"] || tags[1].Commit.ID != ids["c2"] || tags[1].Tagger == nil {
		t.Errorf("Tags = %+v, %v", tags, err)
	}
	if tag, err := b.Tag(ctx, repo, "v1"); err != nil || tag.Commit.ID != ids["c2"] {
		t.Errorf("Tag = %+v, %v", tag, err)
	}

	tree, err := b.Tree(ctx, repo, "main", "", true)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range tree {
		paths = append(paths, e.Type+":"+e.Mode+":"+e.Path)
	}
	want := []string{"tree:040000:dir", "tree:040000:dir/sub", "blob:100644:dir/sub/b.txt", "blob:100644:dir/a.txt", "blob:100644:README"}
	if quoteList(paths) != quoteList(want) {
		t.Errorf("Tree = %v, want %v", paths, want)
	}
	if _, err := b.Tree(ctx, repo, "main", "README", false); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("Tree of a file = %v", err)
	}
	if _, err := b.Tree(ctx, repo, "main", "../x", false); !errors.Is(err, core.ErrInvalid) {
		t.Errorf("Tree of ../x = %v", err)
	}
	f, err := b.File(ctx, repo, "feature", "dir/a.txt")
	if err != nil || string(f.Content) != "a\n" || f.LastCommitID != ids["c2"] || f.CommitID != ids["f1"] || f.Name != "a.txt" {
		t.Errorf("File = %+v, %v", f, err)
	}
	if _, err := b.File(ctx, repo, "main", "dir"); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("File of a directory = %v", err)
	}
	if blob, err := b.Blob(ctx, repo, f.BlobID[:8]); err != nil || string(blob.Content) != "a\n" || blob.ID != f.BlobID {
		t.Errorf("Blob = %+v, %v", blob, err)
	}
	if _, err := b.Blob(ctx, repo, ids["c1"]); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("Blob of a commit = %v", err)
	}

	log, err := b.Log(ctx, repo, domain.LogQuery{Ref: "feature", Skip: 1, Limit: 2})
	if err != nil || len(log) != 2 || log[0].ID != ids["c3"] || log[1].ID != ids["c2"] {
		t.Errorf("Log = %v, %v", log, err)
	}
	if n, err := b.CountCommits(ctx, repo, domain.LogQuery{Ref: "feature", Exclude: []string{"v1"}}); err != nil || n != 2 {
		t.Errorf("CountCommits = %d, %v", n, err)
	}
	if n, err := b.CountCommits(ctx, repo, domain.LogQuery{Ref: "feature", Path: "README"}); err != nil || n != 2 {
		t.Errorf("CountCommits(README) = %d, %v", n, err)
	}
	if _, err := b.Log(ctx, repo, domain.LogQuery{Ref: "nope"}); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("Log of an unknown ref = %v", err)
	}
	if ok, err := b.IsAncestor(ctx, repo, "v1", "feature"); err != nil || !ok {
		t.Errorf("IsAncestor = %v, %v", ok, err)
	}
	if ok, err := b.IsAncestor(ctx, repo, "feature", "main"); err != nil || ok {
		t.Errorf("IsAncestor reversed = %v, %v", ok, err)
	}
	if base, err := b.MergeBase(ctx, repo, "feature", "v1"); err != nil || base != ids["c2"] {
		t.Errorf("MergeBase = %q, %v", base, err)
	}

	if err := b.SetDefaultBranch(ctx, repo, "feature"); err != nil {
		t.Fatal(err)
	}
	if got, _ := b.DefaultBranch(ctx, repo); got != "feature" {
		t.Errorf("DefaultBranch after Set = %q", got)
	}
	if err := b.SetDefaultBranch(ctx, repo, "nope"); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("SetDefaultBranch(nope) = %v", err)
	}
	if empty, err := b.IsEmpty(ctx, repo); err != nil || empty {
		t.Errorf("IsEmpty = %v, %v", empty, err)
	}
	if err := b.Create(ctx, "projects/2.git", "main"); err != nil {
		t.Fatal(err)
	}
	if empty, err := b.IsEmpty(ctx, "projects/2.git"); err != nil || !empty {
		t.Errorf("IsEmpty of a new repository = %v, %v", empty, err)
	}
}

func quoteList(l []string) string {
	s := ""
	for _, x := range l {
		s += "[" + x + "]"
	}
	return s
}
