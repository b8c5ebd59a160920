package contracttests

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// repoHostileRevs are revisions every reading method refuses with
// core.ErrInvalid.
var repoHostileRevs = []string{
	"-x", "--all", "--output=/tmp/x", "main..feature", "main~1", "main^", "@{-1}",
	"main:README", "a\x00b", "main\n", "a b", "refs/heads/../x",
}

func repoReadDefaultBranch(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	repoCreate(t, r, "projects/1.git", "trunk")
	if got, err := r.Backend.DefaultBranch(ctx, "projects/1.git"); err != nil || got != "trunk" {
		t.Errorf("DefaultBranch of an empty repository = %q, %v; want trunk", got, err)
	}
	if empty, err := r.Backend.IsEmpty(ctx, "projects/1.git"); err != nil || !empty {
		t.Errorf("IsEmpty of a new repository = %v, %v; want true", empty, err)
	}
	// A branch that does not exist yet cannot become the default.
	repoWantErr(t, "SetDefaultBranch(main) in an empty repository",
		r.Backend.SetDefaultBranch(ctx, "projects/1.git", "main"), core.ErrNotFound)

	path := repoPath(r, "projects/1.git")
	// Only a non-branch ref: the repository is not empty.
	w := g.work()
	w.commit(1, "one")
	w.git("push", "--quiet", path, "HEAD:refs/merge-requests/1/head")
	if empty, err := r.Backend.IsEmpty(ctx, "projects/1.git"); err != nil || empty {
		t.Errorf("IsEmpty with one ref = %v, %v; want false", empty, err)
	}
	w.git("push", "--quiet", path, "HEAD:refs/heads/topic", "HEAD:refs/tags/v1")

	if err := r.Backend.SetDefaultBranch(ctx, "projects/1.git", "topic"); err != nil {
		t.Fatalf("SetDefaultBranch(topic): %v", err)
	}
	if got := repoHead(t, r, "projects/1.git"); got != "ref: refs/heads/topic\n" {
		t.Errorf("HEAD after SetDefaultBranch = %q", got)
	}
	if got, err := r.Backend.DefaultBranch(ctx, "projects/1.git"); err != nil || got != "topic" {
		t.Errorf("DefaultBranch = %q, %v; want topic", got, err)
	}
	for _, tc := range []struct {
		branch string
		kind   error
	}{
		{"nope", core.ErrNotFound},
		{"v1", core.ErrNotFound}, // a tag
		{"refs/heads/topic", core.ErrInvalid},
		{"-x", core.ErrInvalid},
		{"a..b", core.ErrInvalid},
		{"", core.ErrInvalid},
		{"a\x00b", core.ErrInvalid},
	} {
		err := r.Backend.SetDefaultBranch(ctx, "projects/1.git", tc.branch)
		repoWantErr(t, "SetDefaultBranch("+quote(tc.branch)+")", err, tc.kind)
	}
	if got := repoHead(t, r, "projects/1.git"); got != "ref: refs/heads/topic\n" {
		t.Errorf("HEAD after refused SetDefaultBranch calls = %q", got)
	}
	_, err := r.Backend.DefaultBranch(ctx, "projects/404.git")
	repoWantErr(t, "DefaultBranch of a missing repository", err, core.ErrNotFound)
	_, err = r.Backend.IsEmpty(ctx, "projects/404.git")
	repoWantErr(t, "IsEmpty of a missing repository", err, core.ErrNotFound)
	_, err = r.Backend.IsEmpty(ctx, "../x.git")
	repoWantErr(t, "IsEmpty of a hostile name", err, core.ErrInvalid)
	g.fsck(path)
}

func repoReadResolve(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	h := repoRich(t, r, g)
	peeled := func(rev string) string {
		return g.bare(h.path, "rev-parse", "--verify", "--end-of-options", rev+"^{commit}")
	}
	for _, tc := range []struct{ rev, want string }{
		{h.c["c3"], h.c["c3"]},
		{strings.ToUpper(h.c["c3"]), h.c["c3"]},
		{h.c["c3"][:7], h.c["c3"]},
		{h.c["m4"][:12], h.c["m4"]},
		{"main", h.c["c5"]},
		{"topic", h.c["t2"]},
		{"a/b", h.c["c2"]},
		{"v1.0", peeled("refs/tags/v1.0")},
		{"v2.0", h.c["m4"]},
		{"light", h.c["c3"]},
		{"refs/heads/main", h.c["c5"]},
		{"refs/tags/v1.0", h.c["c2"]},
		{"refs/merge-requests/1/head", h.c["f1"]},
		{"HEAD", h.c["c5"]},
		// A branch wins over a tag of the same name.
		{"feature", peeled("refs/heads/feature")},
		{"refs/tags/feature", h.c["c1"]},
	} {
		got, err := r.Backend.Resolve(ctx, "projects/1.git", tc.rev)
		if err != nil || got != tc.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tc.rev, got, err, tc.want)
		}
	}
	if h.c["f1"] == h.c["c1"] {
		t.Fatal("fixture: branch and tag feature must differ")
	}
	for _, rev := range []string{"nope", "refs/heads/nope", "refs/tags/nope", strings.Repeat("d", 40), "deadbeef", "Upper/x"} {
		_, err := r.Backend.Resolve(ctx, "projects/1.git", rev)
		repoWantErr(t, "Resolve("+quote(rev)+")", err, core.ErrNotFound)
	}
	for _, rev := range repoHostileRevs {
		_, err := r.Backend.Resolve(ctx, "projects/1.git", rev)
		repoWantErr(t, "Resolve("+quote(rev)+")", err, core.ErrInvalid)
	}
	_, err := r.Backend.Resolve(ctx, "projects/404.git", "main")
	repoWantErr(t, "Resolve in a missing repository", err, core.ErrNotFound)
}

func repoReadBranches(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	h := repoRich(t, r, g)
	var want []domain.Branch
	for _, line := range strings.Split(g.bare(h.path, "for-each-ref", "--format=%(refname:lstrip=2) %(objectname)", "refs/heads/"), "\n") {
		name, sha, _ := strings.Cut(line, " ")
		want = append(want, domain.Branch{Name: name, Commit: g.commitOf(h.path, sha)})
	}
	sort.Slice(want, func(i, j int) bool { return want[i].Name < want[j].Name })
	got, err := r.Backend.Branches(ctx, "projects/1.git")
	if err != nil {
		t.Fatalf("Branches: %v", err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Branches (-git +backend):\n%s", d)
	}
	if names := fmt.Sprint(repoBranchNames(got)); names != "[Upper a/b feature main topic]" {
		t.Errorf("branch names = %s", names)
	}
	for _, b := range want {
		one, err := r.Backend.Branch(ctx, "projects/1.git", b.Name)
		if err != nil {
			t.Errorf("Branch(%q): %v", b.Name, err)
			continue
		}
		if d := cmp.Diff(b, one); d != "" {
			t.Errorf("Branch(%q) (-git +backend):\n%s", b.Name, d)
		}
	}
	for _, tc := range []struct {
		name string
		kind error
	}{
		{"nope", core.ErrNotFound},
		{"v1.0", core.ErrNotFound},
		{"a", core.ErrNotFound}, // a directory of refs/heads
		{"refs/heads/main", core.ErrInvalid},
		{"-x", core.ErrInvalid},
		{"main..x", core.ErrInvalid},
		{"a\x00b", core.ErrInvalid},
		{"", core.ErrInvalid},
	} {
		_, err := r.Backend.Branch(ctx, "projects/1.git", tc.name)
		repoWantErr(t, "Branch("+quote(tc.name)+")", err, tc.kind)
	}
	// An empty repository has no branches, and that is not an error.
	repoCreate(t, r, "projects/2.git", "main")
	if got, err := r.Backend.Branches(ctx, "projects/2.git"); err != nil || len(got) != 0 {
		t.Errorf("Branches of an empty repository = %v, %v", got, err)
	}
}

func repoBranchNames(bs []domain.Branch) []string {
	names := make([]string, len(bs))
	for i, b := range bs {
		names[i] = b.Name
	}
	return names
}

// tagOf reads tag name with git as the suite expects a backend to return it.
func (g repoGit) tagOf(path, name string) domain.Tag {
	g.t.Helper()
	ref := "refs/tags/" + name
	target := g.bare(path, "rev-parse", "--verify", "--end-of-options", ref)
	tag := domain.Tag{
		Name:     name,
		TargetID: target,
		Commit:   g.commitOf(path, g.bare(path, "rev-parse", "--verify", "--end-of-options", ref+"^{commit}")),
	}
	if g.bare(path, "cat-file", "-t", target) == "tag" {
		raw := g.bareRaw(path, "cat-file", "tag", target)
		head, msg, _ := strings.Cut(raw, "\n\n")
		msg = strings.TrimSuffix(msg, "\n")
		tag.Message = &msg
		for _, line := range strings.Split(head, "\n") {
			if v, ok := strings.CutPrefix(line, "tagger "); ok {
				s := g.signature(v)
				tag.Tagger = &s
			}
		}
	}
	return tag
}

func repoReadTags(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	h := repoRich(t, r, g)
	names := strings.Split(g.bare(h.path, "for-each-ref", "--format=%(refname:lstrip=2)", "refs/tags/"), "\n")
	sort.Strings(names)
	var want []domain.Tag
	for _, n := range names {
		want = append(want, g.tagOf(h.path, n))
	}
	got, err := r.Backend.Tags(ctx, "projects/1.git")
	if err != nil {
		t.Fatalf("Tags: %v", err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Tags (-git +backend):\n%s", d)
	}
	// What git says, spelled out once.
	v1, err := r.Backend.Tag(ctx, "projects/1.git", "v1.0")
	if err != nil {
		t.Fatalf("Tag(v1.0): %v", err)
	}
	if v1.Message == nil || *v1.Message != "Release 1.0\n\nNotes here." {
		t.Errorf("v1.0 message = %v", v1.Message)
	}
	if v1.Tagger == nil || v1.Tagger.Name != "Hearth Test" || !v1.Tagger.When.Equal(repoWhen(9)) {
		t.Errorf("v1.0 tagger = %+v, want Hearth Test at %v", v1.Tagger, repoWhen(9))
	}
	if v1.TargetID == h.c["c2"] || v1.Commit.ID != h.c["c2"] {
		t.Errorf("v1.0 target %s, commit %s; want a tag object and commit %s", v1.TargetID, v1.Commit.ID, h.c["c2"])
	}
	light, err := r.Backend.Tag(ctx, "projects/1.git", "light")
	if err != nil {
		t.Fatalf("Tag(light): %v", err)
	}
	if light.Message != nil || light.Tagger != nil || light.TargetID != h.c["c3"] || light.Commit.ID != h.c["c3"] {
		t.Errorf("lightweight tag = %+v", light)
	}
	for _, w := range want {
		one, err := r.Backend.Tag(ctx, "projects/1.git", w.Name)
		if err != nil {
			t.Errorf("Tag(%q): %v", w.Name, err)
			continue
		}
		if d := cmp.Diff(w, one); d != "" {
			t.Errorf("Tag(%q) (-git +backend):\n%s", w.Name, d)
		}
	}
	for _, tc := range []struct {
		name string
		kind error
	}{
		{"nope", core.ErrNotFound},
		{"main", core.ErrNotFound}, // a branch
		{"refs/tags/v1.0", core.ErrInvalid},
		{"-x", core.ErrInvalid},
		{"v1..0", core.ErrInvalid},
		{"", core.ErrInvalid},
	} {
		_, err := r.Backend.Tag(ctx, "projects/1.git", tc.name)
		repoWantErr(t, "Tag("+quote(tc.name)+")", err, tc.kind)
	}
}

func repoReadCommit(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	h := repoRich(t, r, g)
	for name, sha := range h.c {
		want := g.commitOf(h.path, sha)
		got, err := r.Backend.Commit(ctx, "projects/1.git", sha)
		if err != nil {
			t.Errorf("Commit(%s): %v", name, err)
			continue
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("Commit(%s) (-git +backend):\n%s", name, d)
		}
	}
	c1, err := r.Backend.Commit(ctx, "projects/1.git", h.c["c1"])
	if err != nil {
		t.Fatal(err)
	}
	// Spelled out: a root commit, another author, a date written in UTC+2.
	if c1.ParentIDs == nil || len(c1.ParentIDs) != 0 {
		t.Errorf("root commit parents = %#v, want []", c1.ParentIDs)
	}
	if c1.Author.Name != "Ada Lovelace" || c1.Author.Email != "ada@example.com" || !c1.Author.When.Equal(repoWhen(1)) {
		t.Errorf("root commit author = %+v", c1.Author)
	}
	if c1.Committer.Name != "Hearth Test" || !c1.Committer.When.Equal(repoWhen(1)) {
		t.Errorf("root commit committer = %+v", c1.Committer)
	}
	if c1.Message != "c1 root\n\nFirst commit body.\n" || c1.Title() != "c1 root" {
		t.Errorf("root commit message = %q", c1.Message)
	}
	m4, err := r.Backend.Commit(ctx, "projects/1.git", "v2.0")
	if err != nil || m4.ID != h.c["m4"] || len(m4.ParentIDs) != 2 || m4.ParentIDs[0] != h.c["c3"] || m4.ParentIDs[1] != h.c["t2"] {
		t.Errorf("Commit(v2.0) = %+v, %v; want merge %s of c3, t2", m4, err, h.c["m4"])
	}
	for _, rev := range []string{"nope", strings.Repeat("e", 40)} {
		_, err := r.Backend.Commit(ctx, "projects/1.git", rev)
		repoWantErr(t, "Commit("+quote(rev)+")", err, core.ErrNotFound)
	}
	// A blob's name is not a commit.
	blob := g.bare(h.path, "rev-parse", "main:README")
	_, err = r.Backend.Commit(ctx, "projects/1.git", blob)
	repoWantErr(t, "Commit(blob)", err, core.ErrNotFound)
	for _, rev := range repoHostileRevs {
		_, err := r.Backend.Commit(ctx, "projects/1.git", rev)
		repoWantErr(t, "Commit("+quote(rev)+")", err, core.ErrInvalid)
	}
}

// revListArgs is q as git rev-list arguments.
func revListArgs(q domain.LogQuery, paged bool) []string {
	args := []string{"rev-list"}
	if q.Since != nil {
		args = append(args, "--max-age="+strconv.FormatInt(q.Since.Unix(), 10))
	}
	if q.Until != nil {
		args = append(args, "--min-age="+strconv.FormatInt(q.Until.Unix(), 10))
	}
	if paged && q.Skip > 0 {
		args = append(args, "--skip="+strconv.Itoa(q.Skip))
	}
	if paged && q.Limit > 0 {
		args = append(args, "--max-count="+strconv.Itoa(q.Limit))
	}
	args = append(args, "--end-of-options", q.Ref)
	for _, x := range q.Exclude {
		args = append(args, "^"+x)
	}
	args = append(args, "--")
	if q.Path != "" {
		args = append(args, q.Path)
	}
	return args
}

func repoReadLog(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	h := repoRich(t, r, g)
	at := func(hour int) *time.Time { w := repoWhen(hour); return &w }
	queries := []domain.LogQuery{
		{Ref: "main"},
		{Ref: "main", Limit: 2},
		{Ref: "main", Skip: 1, Limit: 3},
		{Ref: "main", Skip: 5},
		{Ref: "main", Skip: 100},
		{Ref: "main", Path: "README"},
		{Ref: "main", Path: "src/lib/b.go"},
		{Ref: "main", Path: "src"},
		{Ref: "main", Path: "docs/manual.md"},
		{Ref: "main", Path: "nope"},
		{Ref: "main", Exclude: []string{"feature"}},
		{Ref: "feature", Exclude: []string{"main"}},
		{Ref: "main", Exclude: []string{"topic"}, Limit: 1},
		{Ref: "main", Since: at(3), Until: at(6)},
		{Ref: "main", Since: at(4)},
		{Ref: "main", Until: at(2)},
		{Ref: "main", Since: at(100)},
		{Ref: "main", Since: at(2), Path: "README", Skip: 1},
		{Ref: "v2.0"},
		{Ref: "refs/heads/topic"},
		{Ref: "refs/merge-requests/1/head", Limit: 2},
		{Ref: h.c["m4"], Exclude: []string{h.c["c2"]}},
	}
	for _, q := range queries {
		name := fmt.Sprintf("%+v", q)
		gq := q
		gq.Ref = h.sha(g, q.Ref)
		gq.Exclude = nil
		for _, x := range q.Exclude {
			gq.Exclude = append(gq.Exclude, h.sha(g, x))
		}
		wantIDs := g.bare(h.path, revListArgs(gq, true)...)
		got, err := r.Backend.Log(ctx, "projects/1.git", q)
		if err != nil {
			t.Errorf("Log(%s): %v", name, err)
			continue
		}
		gotIDs := make([]string, len(got))
		for i, c := range got {
			gotIDs[i] = c.ID
		}
		if g := strings.Join(gotIDs, "\n"); g != wantIDs {
			t.Errorf("Log(%s) = \n%s\nwant (git rev-list)\n%s", name, g, wantIDs)
		}
		wantCount, _ := strconv.Atoi(g.bare(h.path, append([]string{"rev-list", "--count"}, revListArgs(gq, false)[1:]...)...))
		n, err := r.Backend.CountCommits(ctx, "projects/1.git", q)
		if err != nil || n != wantCount {
			t.Errorf("CountCommits(%s) = %d, %v; want %d", name, n, err, wantCount)
		}
	}
	// Log returns whole commits.
	got, err := r.Backend.Log(ctx, "projects/1.git", domain.LogQuery{Ref: "main"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range got {
		if d := cmp.Diff(g.commitOf(h.path, c.ID), c); d != "" {
			t.Errorf("Log commit %s (-git +backend):\n%s", c.ID, d)
		}
	}
	for _, q := range []domain.LogQuery{{Ref: "nope"}, {Ref: "refs/heads/nope"}, {Ref: strings.Repeat("a", 40)}} {
		_, err := r.Backend.Log(ctx, "projects/1.git", q)
		repoWantErr(t, "Log of "+quote(q.Ref), err, core.ErrNotFound)
		_, err = r.Backend.CountCommits(ctx, "projects/1.git", q)
		repoWantErr(t, "CountCommits of "+quote(q.Ref), err, core.ErrNotFound)
	}
	for _, q := range []domain.LogQuery{
		{Ref: "-x"}, {Ref: "--all"}, {Ref: "main..feature"},
		{Ref: "main", Exclude: []string{"--all"}},
		{Ref: "main", Exclude: []string{"-x"}},
		{Ref: "main", Path: "../x"},
		{Ref: "main", Path: "a\x00b"},
	} {
		_, err := r.Backend.Log(ctx, "projects/1.git", q)
		repoWantErr(t, fmt.Sprintf("Log(%+v)", q), err, core.ErrInvalid)
		_, err = r.Backend.CountCommits(ctx, "projects/1.git", q)
		repoWantErr(t, fmt.Sprintf("CountCommits(%+v)", q), err, core.ErrInvalid)
	}
}

func repoReadCommitStats(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	h := repoRich(t, r, g)
	for name, sha := range h.c {
		var want domain.CommitStats
		args := []string{"diff-tree", "-r", "-M", "--numstat", "--root", "--no-commit-id"}
		c := g.commitOf(h.path, sha)
		if len(c.ParentIDs) > 0 {
			args = append(args, c.ParentIDs[0])
		}
		out := g.bare(h.path, append(args, sha)...)
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			if len(f) < 3 || f[0] == "-" {
				continue
			}
			a, _ := strconv.Atoi(f[0])
			d, _ := strconv.Atoi(f[1])
			want.Additions += a
			want.Deletions += d
		}
		got, err := r.Backend.CommitStats(ctx, "projects/1.git", sha)
		if err != nil || got != want {
			t.Errorf("CommitStats(%s) = %+v, %v; want %+v", name, got, err, want)
		}
	}
	_, err := r.Backend.CommitStats(ctx, "projects/1.git", strings.Repeat("b", 40))
	repoWantErr(t, "CommitStats of an unknown commit", err, core.ErrNotFound)
	_, err = r.Backend.CommitStats(ctx, "projects/1.git", "-x")
	repoWantErr(t, "CommitStats(-x)", err, core.ErrInvalid)
}

// treeOf lists the tree at p of rev with git ls-tree, in the port's order.
func (g repoGit) treeOf(repo, rev, p string, recursive bool) []domain.TreeEntry {
	g.t.Helper()
	out := g.bareRaw(repo, "ls-tree", "-z", "--end-of-options", rev+":"+p)
	var dirs, files []domain.TreeEntry
	for _, rec := range strings.Split(strings.TrimSuffix(out, "\x00"), "\x00") {
		if rec == "" {
			continue
		}
		meta, name, _ := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		e := domain.TreeEntry{ID: f[2], Name: name, Path: path.Join(p, name), Type: f[1], Mode: f[0]}
		if e.Type == "tree" {
			dirs = append(dirs, e)
		} else {
			files = append(files, e)
		}
	}
	sort.Slice(dirs, func(i, j int) bool { return dirs[i].Name < dirs[j].Name })
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	var all []domain.TreeEntry
	for _, d := range dirs {
		all = append(all, d)
		if recursive {
			all = append(all, g.treeOf(repo, rev, d.Path, true)...)
		}
	}
	return append(all, files...)
}

func repoReadTree(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	h := repoRich(t, r, g)
	for _, tc := range []struct {
		rev, path string
		recursive bool
	}{
		{"main", "", false},
		{"main", "", true},
		{"main", "src", false},
		{"main", "src", true},
		{"main", "src/lib", false},
		{"main", "src/", false},
		{"v1.0", "docs", false},
		{h.c["c1"], "", true},
		{"feature", "", false},
		{"refs/tags/light", "src", true},
	} {
		want := g.treeOf(h.path, h.sha(g, tc.rev), strings.TrimSuffix(tc.path, "/"), tc.recursive)
		got, err := r.Backend.Tree(ctx, "projects/1.git", tc.rev, tc.path, tc.recursive)
		if err != nil {
			t.Errorf("Tree(%q, %q, %v): %v", tc.rev, tc.path, tc.recursive, err)
			continue
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("Tree(%q, %q, %v) (-git +backend):\n%s", tc.rev, tc.path, tc.recursive, d)
		}
	}
	// Spelled out: directories first, byte order, a submodule is a commit.
	root, err := r.Backend.Tree(ctx, "projects/1.git", "main", "", false)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range root {
		names = append(names, e.Name+":"+e.Type+":"+e.Mode)
	}
	want := "[docs:tree:040000 src:tree:040000 vendor:tree:040000 -x:blob:100644 README:blob:100644 " +
		"bin.dat:blob:100644 noeol.txt:blob:100644 script.sh:blob:100755 topic.txt:blob:100644]"
	if got := fmt.Sprint(names); got != want {
		t.Errorf("root tree = %s\nwant %s", got, want)
	}
	vendor, err := r.Backend.Tree(ctx, "projects/1.git", "main", "vendor", false)
	if err != nil || len(vendor) != 1 || vendor[0].Type != "commit" || vendor[0].Mode != "160000" ||
		vendor[0].ID != repoGitlink || vendor[0].Path != "vendor/sub" {
		t.Errorf("Tree(vendor) = %+v, %v; want the submodule vendor/sub", vendor, err)
	}
	for _, tc := range []struct{ rev, path string }{
		{"main", "nope"},
		{"main", "README"},       // a file
		{"main", "src/lib/b.go"}, // a file
		{"main", "vendor/sub"},   // a submodule
		{"main", "docs/guide.md"},
		{"nope", ""},
		{strings.Repeat("c", 40), ""},
	} {
		_, err := r.Backend.Tree(ctx, "projects/1.git", tc.rev, tc.path, false)
		repoWantErr(t, fmt.Sprintf("Tree(%q, %q)", tc.rev, tc.path), err, core.ErrNotFound)
	}
	for _, tc := range []struct{ rev, path string }{
		{"main", "../x"}, {"main", "src/../.."}, {"main", "/etc"}, {"main", "a\x00b"}, {"-x", ""}, {"main..x", ""},
	} {
		_, err := r.Backend.Tree(ctx, "projects/1.git", tc.rev, tc.path, false)
		repoWantErr(t, fmt.Sprintf("Tree(%q, %q)", tc.rev, tc.path), err, core.ErrInvalid)
	}
}

func repoReadFile(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	h := repoRich(t, r, g)
	for _, tc := range []struct{ rev, path string }{
		{"main", "README"},
		{"main", "src/lib/b.go"},
		{"main", "src/main.go"},
		{"main", "script.sh"},
		{"main", "bin.dat"},
		{"main", "noeol.txt"},
		{"main", "-x"},
		{"v1.0", "docs/manual.md"},
		{h.c["c1"], "script.sh"},
		{h.c["c1"], "Zed"},
		{"feature", "feature.txt"},
		{"feature", "README"},
	} {
		commit := h.sha(g, tc.rev)
		blob := g.bare(h.path, "rev-parse", "--verify", "--end-of-options", commit+":"+tc.path)
		size, _ := strconv.ParseInt(g.bare(h.path, "cat-file", "-s", blob), 10, 64)
		meta := strings.Fields(g.bare(h.path, "ls-tree", "--end-of-options", commit, tc.path))
		want := domain.File{
			Path:         tc.path,
			Name:         path.Base(tc.path),
			BlobID:       blob,
			Mode:         meta[0],
			Size:         size,
			Content:      []byte(g.bareRaw(h.path, "cat-file", "blob", blob)),
			CommitID:     commit,
			LastCommitID: g.bare(h.path, "rev-list", "--max-count=1", commit, "--", tc.path),
		}
		got, err := r.Backend.File(ctx, "projects/1.git", tc.rev, tc.path)
		if err != nil {
			t.Errorf("File(%q, %q): %v", tc.rev, tc.path, err)
			continue
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("File(%q, %q) (-git +backend):\n%s", tc.rev, tc.path, d)
		}
	}
	// Spelled out once.
	f, err := r.Backend.File(ctx, "projects/1.git", "main", "script.sh")
	if err != nil || f.Mode != "100755" || string(f.Content) != "echo hi\n" || f.Size != 8 || f.LastCommitID != h.c["c2"] {
		t.Errorf("File(main, script.sh) = %+v, %v", f, err)
	}
	for _, tc := range []struct{ rev, path string }{
		{"main", "nope"},
		{"main", "src"},
		{"main", "src/lib"},
		{"main", "docs/guide.md"}, // renamed away
		{"main", "README/x"},
		{"nope", "README"},
		{strings.Repeat("c", 40), "README"},
	} {
		_, err := r.Backend.File(ctx, "projects/1.git", tc.rev, tc.path)
		repoWantErr(t, fmt.Sprintf("File(%q, %q)", tc.rev, tc.path), err, core.ErrNotFound)
	}
	for _, tc := range []struct{ rev, path string }{
		{"main", "../README"}, {"main", "src/../../x"}, {"main", "/README"}, {"main", "a\x00b"},
		{"main", ""}, {"-x", "README"}, {"main:README", "x"},
	} {
		_, err := r.Backend.File(ctx, "projects/1.git", tc.rev, tc.path)
		if !errors.Is(err, core.ErrInvalid) && !(tc.path == "" && errors.Is(err, core.ErrNotFound)) {
			t.Errorf("File(%q, %q): got %v, want ErrInvalid", tc.rev, tc.path, err)
		}
	}
}

func repoReadBlob(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	h := repoRich(t, r, g)
	for _, p := range []string{"README", "bin.dat", "noeol.txt", "src/main.go"} {
		id := g.bare(h.path, "rev-parse", "main:"+p)
		size, _ := strconv.ParseInt(g.bare(h.path, "cat-file", "-s", id), 10, 64)
		want := domain.Blob{ID: id, Size: size, Content: []byte(g.bareRaw(h.path, "cat-file", "blob", id))}
		for _, name := range []string{id, id[:7], strings.ToUpper(id[:10])} {
			got, err := r.Backend.Blob(ctx, "projects/1.git", name)
			if err != nil {
				t.Errorf("Blob(%s) of %s: %v", name, p, err)
				continue
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("Blob(%s) of %s (-git +backend):\n%s", name, p, d)
			}
		}
	}
	tree := g.bare(h.path, "rev-parse", "main^{tree}")
	for _, name := range []string{strings.Repeat("f", 40), "abcdef01", tree, h.c["c1"]} {
		_, err := r.Backend.Blob(ctx, "projects/1.git", name)
		repoWantErr(t, "Blob("+name+")", err, core.ErrNotFound)
	}
	for _, name := range []string{"-x", "main", "main:README", "xyz", "a\x00b", ""} {
		_, err := r.Backend.Blob(ctx, "projects/1.git", name)
		if !errors.Is(err, core.ErrInvalid) && !errors.Is(err, core.ErrNotFound) {
			t.Errorf("Blob(%q): got %v, want ErrInvalid or ErrNotFound", name, err)
		}
	}
}

func repoReadMergeBase(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	h := repoRich(t, r, g)
	// An unrelated history.
	w := g.work()
	w.write(map[string][]byte{"other": []byte("x\n")})
	w.commit(20, "orphan")
	w.git("push", "--quiet", h.path, "HEAD:refs/heads/orphan")

	for _, tc := range [][2]string{
		{"main", "feature"}, {"feature", "main"}, {"topic", "main"}, {"c5", "c5"},
		{"a/b", "topic"}, {"v1.0", "light"}, {h.c["t1"], h.c["c3"]},
	} {
		a, b := tc[0], tc[1]
		if sha, ok := h.c[a]; ok {
			a = sha
		}
		if sha, ok := h.c[b]; ok {
			b = sha
		}
		want := g.bare(h.path, "merge-base", "--end-of-options", h.sha(g, a), h.sha(g, b))
		got, err := r.Backend.MergeBase(ctx, "projects/1.git", a, b)
		if err != nil || got != want {
			t.Errorf("MergeBase(%s, %s) = %q, %v; want %q", a, b, got, err, want)
		}
	}
	if got, err := r.Backend.MergeBase(ctx, "projects/1.git", "main", "orphan"); err != nil || got != "" {
		t.Errorf("MergeBase of unrelated histories = %q, %v; want \"\"", got, err)
	}
	_, err := r.Backend.MergeBase(ctx, "projects/1.git", "main", "nope")
	repoWantErr(t, "MergeBase with an unknown revision", err, core.ErrNotFound)
	_, err = r.Backend.MergeBase(ctx, "projects/1.git", "--all", "main")
	repoWantErr(t, "MergeBase(--all)", err, core.ErrInvalid)

	for _, tc := range [][2]string{
		{"c1", "main"}, {"main", "c1"}, {"c5", "c5"}, {"feature", "main"}, {"topic", "main"},
		{"t1", "feature"}, {"orphan", "main"}, {"main", "orphan"}, {"light", "feature"}, {"v2.0", "c5"},
	} {
		a, b := tc[0], tc[1]
		if sha, ok := h.c[a]; ok {
			a = sha
		}
		if sha, ok := h.c[b]; ok {
			b = sha
		}
		_, gitErr := g.try(h.path, "--git-dir="+h.path, "merge-base", "--is-ancestor", "--end-of-options", h.sha(g, a), h.sha(g, b))
		want := gitErr == nil
		got, err := r.Backend.IsAncestor(ctx, "projects/1.git", a, b)
		if err != nil || got != want {
			t.Errorf("IsAncestor(%s, %s) = %v, %v; want %v", tc[0], tc[1], got, err, want)
		}
	}
	_, err = r.Backend.IsAncestor(ctx, "projects/1.git", "nope", "main")
	repoWantErr(t, "IsAncestor with an unknown revision", err, core.ErrNotFound)
	_, err = r.Backend.IsAncestor(ctx, "projects/1.git", "main", "-x")
	repoWantErr(t, "IsAncestor(-x)", err, core.ErrInvalid)
}

// repoReadMergedBranches: the branches reachable from a revision are what
// git for-each-ref --merged says, for several revisions.
func repoReadMergedBranches(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	h := repoRich(t, r, g)
	for _, rev := range []string{"main", "feature", "topic", "c1", "v1.0"} {
		target := rev
		if sha, ok := h.c[rev]; ok {
			target = sha
		}
		out := g.bare(h.path, "for-each-ref", "--merged="+h.sha(g, target), "--format=%(refname:lstrip=2)", "refs/heads/")
		want := strings.Fields(out)
		sort.Strings(want)
		got, err := r.Backend.MergedBranches(ctx, "projects/1.git", target)
		if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("MergedBranches(%s) = %v, %v; want %v", rev, got, err, want)
		}
	}
	_, err := r.Backend.MergedBranches(ctx, "projects/1.git", "nope")
	repoWantErr(t, "MergedBranches of an unknown revision", err, core.ErrNotFound)
	_, err = r.Backend.MergedBranches(ctx, "projects/1.git", "--all")
	repoWantErr(t, "MergedBranches(--all)", err, core.ErrInvalid)
}
