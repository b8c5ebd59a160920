package gitcli_test

import (
	"errors"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/adapters/git/gitcli"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

func sig(name string) domain.Signature {
	return domain.Signature{Name: name, Email: name + "@example.com", When: time.Date(2024, 5, 1, 10, 0, 0, 0, time.FixedZone("", 3600))}
}

func TestCommitFiles(t *testing.T) {
	t.Parallel()
	b, bare, ids := seeded(t)
	ctx := t.Context()
	const repo = "projects/1.git"
	req := domain.CommitFiles{
		Branch: "main", Message: "edit\n", Author: sig("ann"), Committer: sig("bob"),
		Actions: []domain.FileAction{
			{Action: domain.FileCreate, Path: "new/x.txt", Content: []byte("x\n")},
			{Action: domain.FileUpdate, Path: "README", Content: []byte("changed\n")},
			{Action: domain.FileDelete, Path: "dir/sub/b.txt"},
			{Action: domain.FileMove, PreviousPath: "dir/a.txt", Path: "moved/a.txt"},
		},
	}
	c, err := b.CommitFiles(ctx, repo, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.ParentIDs) != 1 || c.ParentIDs[0] != ids["c3"] || c.Message != "edit\n" || c.Author.Name != "ann" ||
		c.Committer.Name != "bob" || !c.Author.When.Equal(sig("x").When) {
		t.Errorf("commit = %+v", c)
	}
	if got := gitcli.CleanGit(t, bare, "--git-dir="+bare, "ls-tree", "-r", "--name-only", "main"); got != "README\nmoved/a.txt\nnew/x.txt" {
		t.Errorf("tree after commit:\n%s", got)
	}
	gitcli.CleanGit(t, bare, "--git-dir="+bare, "fsck", "--strict", "--no-progress")
	// Deterministic: the same request on the same parent gives the same commit.
	if again := gitcli.CleanGit(t, bare, "--git-dir="+bare, "rev-parse", "main"); again != c.ID {
		t.Errorf("main = %s, want %s", again, c.ID)
	}

	for _, tc := range []struct {
		a    domain.FileAction
		want string
	}{
		{domain.FileAction{Action: domain.FileCreate, Path: "README", Content: []byte("x")}, "A file with this name already exists"},
		{domain.FileAction{Action: domain.FileCreate, Path: "new", Content: []byte("x")}, "A directory with this name already exists"},
		{domain.FileAction{Action: domain.FileUpdate, Path: "nope", Content: []byte("x")}, "A file with this name doesn't exist"},
		{domain.FileAction{Action: domain.FileDelete, Path: "nope"}, "A file with this name doesn't exist"},
		{domain.FileAction{Action: domain.FileMove, PreviousPath: "nope", Path: "x"}, "A file with this name doesn't exist"},
		{domain.FileAction{Action: domain.FileMove, PreviousPath: "README", Path: "new/x.txt"}, "A file with this name already exists"},
	} {
		r := req
		r.Actions = []domain.FileAction{tc.a}
		_, err := b.CommitFiles(ctx, repo, r)
		var ce *core.Error
		if !errors.As(err, &ce) || !errors.Is(err, core.ErrInvalid) || ce.Msg != tc.want {
			t.Errorf("%+v: error %v, want %q", tc.a, err, tc.want)
		}
	}
	for _, p := range []string{"../x", "a//b", "/abs", "a/./b", "x\x00y", ".git/config", "a/.GIT/x", ".git./x", "a\\b"} {
		r := req
		r.Actions = []domain.FileAction{{Action: domain.FileCreate, Path: p, Content: []byte("x")}}
		if _, err := b.CommitFiles(ctx, repo, r); !errors.Is(err, core.ErrInvalid) {
			t.Errorf("create %q: %v, want ErrInvalid", p, err)
		}
	}
	// Unknown branch without a start branch.
	r := req
	r.Branch = "nope"
	r.Actions = []domain.FileAction{{Action: domain.FileCreate, Path: "y", Content: []byte("y")}}
	if _, err := b.CommitFiles(ctx, repo, r); !errors.Is(err, core.ErrInvalid) {
		t.Errorf("unknown branch: %v", err)
	}
	r.StartBranch = "feature"
	nc, err := b.CommitFiles(ctx, repo, r)
	if err != nil || nc.ParentIDs[0] != ids["f1"] {
		t.Errorf("new branch from feature: %+v, %v", nc, err)
	}
	// Stale expected head.
	r = req
	r.ExpectedHead = ids["c3"]
	r.Actions = []domain.FileAction{{Action: domain.FileCreate, Path: "z", Content: []byte("z")}}
	if _, err := b.CommitFiles(ctx, repo, r); !errors.Is(err, core.ErrStale) {
		t.Errorf("stale head: %v", err)
	}

	// Empty repository: first commit.
	if err := b.Create(ctx, "projects/2.git", "main"); err != nil {
		t.Fatal(err)
	}
	r = req
	r.Actions = []domain.FileAction{{Action: domain.FileCreate, Path: "a/b", Content: []byte("b")}}
	first, err := b.CommitFiles(ctx, "projects/2.git", r)
	if err != nil || len(first.ParentIDs) != 0 {
		t.Errorf("first commit: %+v, %v", first, err)
	}
}

func TestUpdateRefAndTags(t *testing.T) {
	t.Parallel()
	b, bare, ids := seeded(t)
	ctx := t.Context()
	const repo = "projects/1.git"
	if err := b.UpdateRef(ctx, repo, "refs/heads/new", ids["c1"], domain.ZeroID); err != nil {
		t.Fatal(err)
	}
	if err := b.UpdateRef(ctx, repo, "refs/heads/new", ids["c2"], ids["c3"]); !errors.Is(err, core.ErrStale) {
		t.Errorf("stale UpdateRef: %v", err)
	}
	if err := b.UpdateRef(ctx, repo, "refs/heads/new", ids["c2"], domain.ZeroID); !errors.Is(err, core.ErrStale) {
		t.Errorf("create over existing: %v", err)
	}
	if err := b.UpdateRef(ctx, repo, "refs/heads/new", ids["c2"], ids["c1"]); err != nil {
		t.Errorf("UpdateRef: %v", err)
	}
	if err := b.UpdateRef(ctx, repo, "refs/heads/x", "1234567890123456789012345678901234567890", domain.ZeroID); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("unknown object: %v", err)
	}
	tree := gitcli.CleanGit(t, bare, "--git-dir="+bare, "rev-parse", "main^{tree}")
	if err := b.UpdateRef(ctx, repo, "refs/heads/x", tree, domain.ZeroID); !errors.Is(err, core.ErrInvalid) {
		t.Errorf("branch to a tree: %v", err)
	}
	for _, ref := range []string{"-d", "refs/heads/../x", "main", "refs/heads/a b", "refs/heads/-x"} {
		if err := b.UpdateRef(ctx, repo, ref, ids["c1"], domain.ZeroID); !errors.Is(err, core.ErrInvalid) {
			t.Errorf("UpdateRef(%q): %v", ref, err)
		}
	}
	if err := b.UpdateRef(ctx, repo, "refs/heads/new", domain.ZeroID, ids["c2"]); err != nil {
		t.Errorf("delete: %v", err)
	}
	if _, err := b.Branch(ctx, repo, "new"); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("deleted branch: %v", err)
	}

	tag, err := b.CreateTag(ctx, repo, "v2", "feature", "release two", sig("tagger"))
	if err != nil || tag.Message == nil || *tag.Message != "release two" || tag.Commit.ID != ids["f1"] ||
		tag.Tagger == nil || tag.Tagger.Name != "tagger" || tag.TargetID == ids["f1"] {
		t.Errorf("annotated tag: %+v, %v", tag, err)
	}
	raw := gitcli.CleanGit(t, bare, "--git-dir="+bare, "cat-file", "tag", "v2")
	if want := "object " + ids["f1"] + "\ntype commit\ntag v2\ntagger tagger <tagger@example.com> 1714554000 +0100\n\nrelease two"; raw != want {
		t.Errorf("tag object:\n%s\nwant\n%s", raw, want)
	}
	light, err := b.CreateTag(ctx, repo, "l2", ids["c1"][:8], "", domain.Signature{})
	if err != nil || light.Message != nil || light.TargetID != ids["c1"] {
		t.Errorf("lightweight tag: %+v, %v", light, err)
	}
	if _, err := b.CreateTag(ctx, repo, "v2", "main", "", domain.Signature{}); !errors.Is(err, core.ErrConflict) {
		t.Errorf("existing tag: %v", err)
	}
	if _, err := b.CreateTag(ctx, repo, "v3", "nope", "", domain.Signature{}); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("unknown target: %v", err)
	}
	if _, err := b.CreateTag(ctx, repo, "-v3", "main", "", domain.Signature{}); !errors.Is(err, core.ErrInvalid) {
		t.Errorf("hostile tag name: %v", err)
	}
}
