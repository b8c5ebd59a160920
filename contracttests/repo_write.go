package contracttests

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// repoAuthor and repoCommitter sign the suite's API-made commits.
var (
	repoAuthor = domain.Signature{
		Name: "Grace Hopper", Email: "grace@example.com",
		When: time.Date(2024, 2, 1, 10, 0, 0, 0, time.FixedZone("", 3600)),
	}
	repoCommitter = domain.Signature{
		Name: "Hearth Bot", Email: "bot@example.com",
		When: time.Date(2024, 2, 1, 9, 30, 0, 0, time.UTC),
	}
)

// refOf is the object ref points at, or "" when it does not exist.
func (g repoGit) refOf(path, ref string) string {
	g.t.Helper()
	out, err := g.try(path, "--git-dir="+path, "rev-parse", "--verify", "--quiet", "--end-of-options", ref)
	if err != nil {
		return ""
	}
	return out
}

// filesOf maps every blob path of rev's tree to its content, as git reads it.
func (g repoGit) filesOf(path, rev string) map[string]string {
	g.t.Helper()
	files := map[string]string{}
	out := g.bareRaw(path, "ls-tree", "-r", "-z", "--end-of-options", rev)
	for _, rec := range strings.Split(strings.TrimSuffix(out, "\x00"), "\x00") {
		if rec == "" {
			continue
		}
		meta, p, _ := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		files[p] = g.bareRaw(path, "cat-file", "blob", f[2])
	}
	return files
}

func repoUpdateRef(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	h := repoRich(t, r, g)
	zero := domain.ZeroID
	up := func(ref, newID, oldID string) error {
		return r.Backend.UpdateRef(ctx, "projects/1.git", ref, newID, oldID)
	}
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	at := func(ref, want string) {
		t.Helper()
		if got := g.refOf(h.path, ref); got != want {
			t.Errorf("%s = %q, want %q", ref, got, want)
		}
	}
	must("create", up("refs/heads/new", h.c["c1"], zero))
	at("refs/heads/new", h.c["c1"])
	repoWantErr(t, "create of an existing ref", up("refs/heads/new", h.c["c2"], zero), core.ErrStale)
	at("refs/heads/new", h.c["c1"])
	must("move", up("refs/heads/new", h.c["c2"], h.c["c1"]))
	at("refs/heads/new", h.c["c2"])
	repoWantErr(t, "move from a stale value", up("refs/heads/new", h.c["c3"], h.c["c1"]), core.ErrStale)
	at("refs/heads/new", h.c["c2"])
	// Backwards is fine: no fast-forward rule here.
	must("move back", up("refs/heads/new", h.c["c1"], h.c["c2"]))
	at("refs/heads/new", h.c["c1"])
	repoWantErr(t, "delete from a stale value", up("refs/heads/new", zero, h.c["c2"]), core.ErrStale)
	at("refs/heads/new", h.c["c1"])
	must("delete", up("refs/heads/new", zero, h.c["c1"]))
	at("refs/heads/new", "")
	repoWantErr(t, "delete of a missing ref", up("refs/heads/new", zero, h.c["c1"]), core.ErrStale)
	repoWantErr(t, "move of a missing ref", up("refs/heads/new", h.c["c2"], h.c["c1"]), core.ErrStale)
	at("refs/heads/new", "")

	// Nested names, tags and other namespaces.
	must("create nested branch", up("refs/heads/x/y/z", h.c["c3"], zero))
	at("refs/heads/x/y/z", h.c["c3"])
	v1 := g.refOf(h.path, "refs/tags/v1.0")
	must("tag to a tag object", up("refs/tags/copy", v1, zero))
	at("refs/tags/copy", v1)
	must("merge request ref", up("refs/merge-requests/2/head", h.c["f1"], zero))
	at("refs/merge-requests/2/head", h.c["f1"])

	// Branches point at commits.
	tree := g.bare(h.path, "rev-parse", "main^{tree}")
	blob := g.bare(h.path, "rev-parse", "main:README")
	for _, id := range []string{tree, blob, v1} {
		repoWantErr(t, "branch to a "+g.bare(h.path, "cat-file", "-t", id), up("refs/heads/bad", id, zero), core.ErrInvalid)
		repoWantErr(t, "move main to a non-commit", up("refs/heads/main", id, h.c["c5"]), core.ErrInvalid)
	}
	at("refs/heads/bad", "")
	at("refs/heads/main", h.c["c5"])
	repoWantErr(t, "unknown new object", up("refs/heads/bad", strings.Repeat("ab", 20), zero), core.ErrNotFound)
	at("refs/heads/bad", "")

	for _, ref := range []string{
		"main", "heads/main", "refs/heads/", "refs/heads/../x", "refs/heads/-x", "-x", "--all",
		"refs/heads/a b", "refs/heads/x.lock", "refs/heads/a\x00b", "refs/heads/a\nb", "refs/heads/a~1",
		"refs/heads/a..b", "refs/heads/@{x}", "refs/heads/x/", "refs//heads/x", "HEAD", "refs/heads/.x",
	} {
		repoWantErr(t, "UpdateRef of "+quote(ref), up(ref, h.c["c1"], zero), core.ErrInvalid)
	}
	for _, id := range []string{"", "xyz", "-x", "main", h.c["c1"][:8], strings.ToUpper(h.c["c1"])} {
		err := up("refs/heads/bad", id, zero)
		if !errors.Is(err, core.ErrInvalid) && !errors.Is(err, core.ErrNotFound) {
			t.Errorf("UpdateRef to %q: got %v, want ErrInvalid or ErrNotFound", id, err)
		}
	}
	at("refs/heads/bad", "")
	repoWantErr(t, "UpdateRef in a missing repository",
		r.Backend.UpdateRef(ctx, "projects/404.git", "refs/heads/x", h.c["c1"], zero), core.ErrNotFound)
	g.fsck(h.path)
}

// repoCommit is CommitFiles that fails the test on error.
func repoCommit(t *testing.T, r Repo, repo string, req domain.CommitFiles) domain.Commit {
	t.Helper()
	if req.Author.Name == "" {
		req.Author = repoAuthor
	}
	if req.Committer.Name == "" {
		req.Committer = repoCommitter
	}
	if req.Message == "" {
		req.Message = "change"
	}
	c, err := r.Backend.CommitFiles(t.Context(), repo, req)
	if err != nil {
		t.Fatalf("CommitFiles(%+v): %v", req, err)
	}
	return c
}

func repoCommitFiles(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	repoCreate(t, r, "projects/1.git", "main")
	path := repoPath(r, "projects/1.git")

	// The first commit of an empty repository.
	c1 := repoCommit(t, r, "projects/1.git", domain.CommitFiles{
		Branch:  "main",
		Message: "Add files\n\nWith a body.",
		Actions: []domain.FileAction{
			{Action: domain.FileCreate, Path: "README.md", Content: []byte("hello\n")},
			{Action: domain.FileCreate, Path: "dir/sub/x.txt", Content: []byte("x\n")},
			{Action: domain.FileCreate, Path: "empty", Content: []byte{}},
		},
	})
	if got := g.refOf(path, "refs/heads/main"); got != c1.ID {
		t.Fatalf("main = %s, want the new commit %s", got, c1.ID)
	}
	if d := cmp.Diff(g.commitOf(path, c1.ID), c1); d != "" {
		t.Errorf("returned commit (-git +backend):\n%s", d)
	}
	if len(c1.ParentIDs) != 0 || c1.Title() != "Add files" || !strings.HasPrefix(c1.Message, "Add files\n\nWith a body.") {
		t.Errorf("first commit = %+v", c1)
	}
	if !sameSig(c1.Author, repoAuthor) || !sameSig(c1.Committer, repoCommitter) {
		t.Errorf("first commit signatures = %+v, %+v; want %+v, %+v", c1.Author, c1.Committer, repoAuthor, repoCommitter)
	}
	want := map[string]string{"README.md": "hello\n", "dir/sub/x.txt": "x\n", "empty": ""}
	if d := cmp.Diff(want, g.filesOf(path, "main")); d != "" {
		t.Errorf("tree after the first commit (-want +git):\n%s", d)
	}

	// Updates, a binary file (base64 already decoded), a name starting
	// with "-" (legal in git and GitLab).
	bin := repoBinary(9)
	c2 := repoCommit(t, r, "projects/1.git", domain.CommitFiles{
		Branch: "main",
		Actions: []domain.FileAction{
			{Action: domain.FileUpdate, Path: "README.md", Content: []byte("hello\nworld\n")},
			{Action: domain.FileCreate, Path: "-x", Content: []byte("dash\n")},
			{Action: domain.FileCreate, Path: "bin/data.bin", Content: bin},
		},
	})
	if len(c2.ParentIDs) != 1 || c2.ParentIDs[0] != c1.ID {
		t.Errorf("second commit parents = %v, want [%s]", c2.ParentIDs, c1.ID)
	}
	want["README.md"], want["-x"], want["bin/data.bin"] = "hello\nworld\n", "dash\n", string(bin)
	if d := cmp.Diff(want, g.filesOf(path, "main")); d != "" {
		t.Errorf("tree after updates (-want +git):\n%s", d)
	}
	readmeBlob := g.bare(path, "rev-parse", "main:README.md")

	// Moves (with and without content) and a delete that empties a
	// directory, with ExpectedHead.
	c3 := repoCommit(t, r, "projects/1.git", domain.CommitFiles{
		Branch:       "main",
		ExpectedHead: c2.ID,
		Actions: []domain.FileAction{
			{Action: domain.FileMove, Path: "docs/README.md", PreviousPath: "README.md"},
			{Action: domain.FileMove, Path: "bin/renamed.bin", PreviousPath: "bin/data.bin", Content: []byte("now text\n")},
			{Action: domain.FileDelete, Path: "dir/sub/x.txt"},
		},
	})
	delete(want, "README.md")
	delete(want, "bin/data.bin")
	delete(want, "dir/sub/x.txt")
	want["docs/README.md"], want["bin/renamed.bin"] = "hello\nworld\n", "now text\n"
	if d := cmp.Diff(want, g.filesOf(path, "main")); d != "" {
		t.Errorf("tree after moves (-want +git):\n%s", d)
	}
	if got := g.bare(path, "rev-parse", "main:docs/README.md"); got != readmeBlob {
		t.Errorf("a move without content changed the blob: %s, want %s", got, readmeBlob)
	}
	if _, err := g.try(path, "--git-dir="+path, "rev-parse", "--verify", "main:dir"); err == nil {
		t.Error("an emptied directory is still in the tree")
	}
	if len(c3.ParentIDs) != 1 || c3.ParentIDs[0] != c2.ID {
		t.Errorf("third commit parents = %v", c3.ParentIDs)
	}

	// A new branch from StartBranch; the start branch does not move.
	f1 := repoCommit(t, r, "projects/1.git", domain.CommitFiles{
		Branch:       "feat/one",
		StartBranch:  "main",
		ExpectedHead: domain.ZeroID,
		Actions:      []domain.FileAction{{Action: domain.FileCreate, Path: "feature.txt", Content: []byte("f\n")}},
	})
	if len(f1.ParentIDs) != 1 || f1.ParentIDs[0] != c3.ID || g.refOf(path, "refs/heads/feat/one") != f1.ID || g.refOf(path, "refs/heads/main") != c3.ID {
		t.Errorf("commit to a new branch: parents %v, feat/one %s, main %s", f1.ParentIDs, g.refOf(path, "refs/heads/feat/one"), g.refOf(path, "refs/heads/main"))
	}
	// StartBranch is ignored once the branch exists.
	f2 := repoCommit(t, r, "projects/1.git", domain.CommitFiles{
		Branch:      "feat/one",
		StartBranch: "main",
		Actions:     []domain.FileAction{{Action: domain.FileUpdate, Path: "feature.txt", Content: []byte("f2\n")}},
	})
	if len(f2.ParentIDs) != 1 || f2.ParentIDs[0] != f1.ID {
		t.Errorf("commit to an existing branch with StartBranch: parents %v, want [%s]", f2.ParentIDs, f1.ID)
	}

	refs := g.refs(path)
	fail := func(what string, req domain.CommitFiles, kind error, msg string) {
		t.Helper()
		if req.Author.Name == "" {
			req.Author, req.Committer = repoAuthor, repoCommitter
		}
		if req.Message == "" {
			req.Message = "refused"
		}
		_, err := r.Backend.CommitFiles(ctx, "projects/1.git", req)
		repoWantErr(t, what, err, kind)
		if err != nil && msg != "" && !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %q does not say %q", what, err, msg)
		}
		if got := g.refs(path); got != refs {
			t.Errorf("%s moved refs:\n%s\nwant\n%s", what, got, refs)
		}
	}
	create := func(p string) domain.FileAction {
		return domain.FileAction{Action: domain.FileCreate, Path: p, Content: []byte("x\n")}
	}
	const (
		exists   = "A file with this name already exists"
		missing  = "A file with this name doesn't exist"
		onBranch = "You can only create or edit files when you are on a branch"
	)
	fail("create of an existing file", domain.CommitFiles{Branch: "main", Actions: []domain.FileAction{create("-x")}}, core.ErrInvalid, exists)
	fail("create of an existing nested file", domain.CommitFiles{Branch: "main", Actions: []domain.FileAction{create("docs/README.md")}}, core.ErrInvalid, exists)
	fail("create twice in one commit", domain.CommitFiles{Branch: "main", Actions: []domain.FileAction{create("n"), create("n")}}, core.ErrInvalid, exists)
	fail("move onto an existing file", domain.CommitFiles{Branch: "main", Actions: []domain.FileAction{
		{Action: domain.FileMove, Path: "-x", PreviousPath: "empty"}}}, core.ErrInvalid, exists)
	fail("update of a missing file", domain.CommitFiles{Branch: "main", Actions: []domain.FileAction{
		{Action: domain.FileUpdate, Path: "nope", Content: []byte("x")}}}, core.ErrInvalid, missing)
	fail("delete of a missing file", domain.CommitFiles{Branch: "main", Actions: []domain.FileAction{
		{Action: domain.FileDelete, Path: "nope"}}}, core.ErrInvalid, missing)
	fail("move of a missing file", domain.CommitFiles{Branch: "main", Actions: []domain.FileAction{
		{Action: domain.FileMove, Path: "new", PreviousPath: "nope"}}}, core.ErrInvalid, missing)
	fail("all or nothing", domain.CommitFiles{Branch: "main", Actions: []domain.FileAction{
		create("ok.txt"), {Action: domain.FileDelete, Path: "nope"}}}, core.ErrInvalid, missing)
	fail("unknown branch", domain.CommitFiles{Branch: "nope", Actions: []domain.FileAction{create("a")}}, core.ErrInvalid, onBranch)
	fail("unknown start branch", domain.CommitFiles{Branch: "new", StartBranch: "nope", Actions: []domain.FileAction{create("a")}}, core.ErrInvalid, "")
	fail("stale expected head", domain.CommitFiles{Branch: "main", ExpectedHead: c2.ID, Actions: []domain.FileAction{create("a")}}, core.ErrStale, "")
	fail("expected absent branch exists", domain.CommitFiles{Branch: "main", ExpectedHead: domain.ZeroID, Actions: []domain.FileAction{create("a")}}, core.ErrStale, "")
	fail("expected head of a missing branch", domain.CommitFiles{Branch: "gone", StartBranch: "main", ExpectedHead: c3.ID, Actions: []domain.FileAction{create("a")}}, core.ErrStale, "")
	fail("no actions", domain.CommitFiles{Branch: "main"}, core.ErrInvalid, "")
	fail("unknown action", domain.CommitFiles{Branch: "main", Actions: []domain.FileAction{{Action: "chmod", Path: "-x"}}}, core.ErrInvalid, "")
	for _, p := range []string{
		"../x", "a/../../b", "a/../b", "./a", "a//b", "/abs", "", ".git/config", ".git", "a/.git/hooks/post-update",
		".GIT/config", "x\x00y", "a\nb", `a\b`,
	} {
		fail("create at "+quote(p), domain.CommitFiles{Branch: "main", Actions: []domain.FileAction{create(p)}}, core.ErrInvalid, "")
		fail("move from "+quote(p), domain.CommitFiles{Branch: "main", Actions: []domain.FileAction{
			{Action: domain.FileMove, Path: "moved", PreviousPath: p}}}, core.ErrInvalid, "")
	}
	for _, b := range []string{"-x", "refs/heads/main", "a..b", "HEAD", "a b", ""} {
		fail("branch "+quote(b), domain.CommitFiles{Branch: b, Actions: []domain.FileAction{create("a")}}, core.ErrInvalid, "")
		fail("start branch "+quote(b), domain.CommitFiles{Branch: "fresh", StartBranch: b + "x", Actions: []domain.FileAction{create("a")}}, core.ErrInvalid, "")
	}
	_, err := r.Backend.CommitFiles(ctx, "projects/404.git", domain.CommitFiles{
		Branch: "main", Author: repoAuthor, Committer: repoCommitter, Message: "m", Actions: []domain.FileAction{create("a")}})
	repoWantErr(t, "CommitFiles in a missing repository", err, core.ErrNotFound)
	g.fsck(path)
}

func repoConcurrentCommitFiles(t *testing.T, r Repo) {
	g := newRepoGit(t)
	repoCreate(t, r, "projects/1.git", "main")
	path := repoPath(r, "projects/1.git")
	base := repoCommit(t, r, "projects/1.git", domain.CommitFiles{
		Branch: "main", Actions: []domain.FileAction{{Action: domain.FileCreate, Path: "README", Content: []byte("r\n")}}})
	const n = 32
	commits := make([]domain.Commit, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			commits[i], errs[i] = r.Backend.CommitFiles(t.Context(), "projects/1.git", domain.CommitFiles{
				Branch: "main", Message: fmt.Sprintf("commit %d", i), Author: repoAuthor, Committer: repoCommitter,
				Actions: []domain.FileAction{{Action: domain.FileCreate, Path: fmt.Sprintf("f/%02d", i), Content: []byte(strconv.Itoa(i))}},
			})
		})
	}
	wg.Wait()
	head := g.refOf(path, "refs/heads/main")
	files := g.filesOf(path, head)
	won := 0
	for i := range n {
		switch {
		case errs[i] == nil:
			won++
			if _, err := g.try(path, "--git-dir="+path, "merge-base", "--is-ancestor", commits[i].ID, head); err != nil {
				t.Errorf("commit %d (%s) is not reachable from main: %v", i, commits[i].ID, err)
			}
			if files[fmt.Sprintf("f/%02d", i)] != strconv.Itoa(i) {
				t.Errorf("commit %d applied but its file is not at the head", i)
			}
		case errors.Is(errs[i], core.ErrStale):
			if _, ok := files[fmt.Sprintf("f/%02d", i)]; ok {
				t.Errorf("commit %d was refused but its file is at the head", i)
			}
		default:
			t.Errorf("concurrent CommitFiles %d: %v, want nil or ErrStale", i, errs[i])
		}
	}
	if won == 0 {
		t.Error("no concurrent commit succeeded")
	}
	count, _ := strconv.Atoi(g.bare(path, "rev-list", "--count", "main"))
	if count != won+1 {
		t.Errorf("main has %d commits, want %d (base + every success)", count, won+1)
	}
	if got := g.bare(path, "rev-list", "--max-parents=0", "main"); got != base.ID {
		t.Errorf("root of main = %s, want %s", got, base.ID)
	}
	g.fsck(path)
}

func repoCreateTag(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	h := repoRich(t, r, g)
	light, err := r.Backend.CreateTag(ctx, "projects/1.git", "v9", "main", "", repoCommitter)
	if err != nil {
		t.Fatalf("CreateTag lightweight: %v", err)
	}
	if got := g.refOf(h.path, "refs/tags/v9"); got != h.c["c5"] {
		t.Errorf("refs/tags/v9 = %s, want %s", got, h.c["c5"])
	}
	if d := cmp.Diff(g.tagOf(h.path, "v9"), light); d != "" {
		t.Errorf("lightweight tag (-git +backend):\n%s", d)
	}
	if light.Message != nil || light.Tagger != nil {
		t.Errorf("lightweight tag has message %v, tagger %v", light.Message, light.Tagger)
	}

	ann, err := r.Backend.CreateTag(ctx, "projects/1.git", "release/v10", h.c["c1"][:10], "Release 10\n\nBody.", repoAuthor)
	if err != nil {
		t.Fatalf("CreateTag annotated: %v", err)
	}
	target := g.refOf(h.path, "refs/tags/release/v10")
	if typ := g.bare(h.path, "cat-file", "-t", target); typ != "tag" {
		t.Fatalf("annotated tag points at a %s", typ)
	}
	if d := cmp.Diff(g.tagOf(h.path, "release/v10"), ann); d != "" {
		t.Errorf("annotated tag (-git +backend):\n%s", d)
	}
	if ann.Message == nil || *ann.Message != "Release 10\n\nBody." || ann.Tagger == nil || !sameSig(*ann.Tagger, repoAuthor) ||
		ann.Commit.ID != h.c["c1"] || ann.TargetID != target {
		t.Errorf("annotated tag = %+v", ann)
	}
	raw := g.bareRaw(h.path, "cat-file", "tag", target)
	if !strings.Contains(raw, "\ntag release/v10\n") || !strings.Contains(raw, "object "+h.c["c1"]+"\ntype commit\n") {
		t.Errorf("tag object:\n%s", raw)
	}
	// A tag of a tag name: the new tag points at the same object's commit.
	onTag, err := r.Backend.CreateTag(ctx, "projects/1.git", "again", "v1.0", "", repoAuthor)
	if err != nil || onTag.Commit.ID != h.c["c2"] {
		t.Errorf("CreateTag at v1.0 = %+v, %v; want commit %s", onTag, err, h.c["c2"])
	}
	if d := cmp.Diff(g.tagOf(h.path, "again"), onTag); d != "" {
		t.Errorf("tag at a tag (-git +backend):\n%s", d)
	}

	refs := g.refs(h.path)
	for _, tc := range []struct {
		name, target, message string
		kind                  error
	}{
		{"v9", "feature", "", core.ErrConflict},
		{"v1.0", "main", "again", core.ErrConflict},
		{"new", "nope", "", core.ErrNotFound},
		{"new", strings.Repeat("a", 40), "m", core.ErrNotFound},
		{"-x", "main", "", core.ErrInvalid},
		{"refs/tags/x", "main", "", core.ErrInvalid},
		{"a..b", "main", "", core.ErrInvalid},
		{"", "main", "", core.ErrInvalid},
		{"a b", "main", "m", core.ErrInvalid},
		{"x.lock", "main", "", core.ErrInvalid},
		{"new", "-x", "", core.ErrInvalid},
		{"new", "main..feature", "", core.ErrInvalid},
	} {
		_, err := r.Backend.CreateTag(ctx, "projects/1.git", tc.name, tc.target, tc.message, repoAuthor)
		repoWantErr(t, fmt.Sprintf("CreateTag(%q, %q)", tc.name, tc.target), err, tc.kind)
	}
	if got := g.refs(h.path); got != refs {
		t.Errorf("refused CreateTag calls moved refs:\n%s\nwant\n%s", got, refs)
	}
	g.fsck(h.path)
}
