package gitcli_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"io"
	"testing"

	"github.com/hearth-forge/hearth/adapters/git/gitcli"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

func TestDiffAndStats(t *testing.T) {
	t.Parallel()
	b, _, ids := seeded(t)
	ctx := t.Context()
	const repo = "projects/1.git"
	c, err := b.CommitFiles(ctx, repo, domain.CommitFiles{
		Branch: "main", Message: "m", Author: sig("a"), Committer: sig("a"),
		Actions: []domain.FileAction{
			{Action: domain.FileUpdate, Path: "README", Content: []byte("one\ntwo\n")},
			{Action: domain.FileDelete, Path: "dir/sub/b.txt"},
			{Action: domain.FileMove, PreviousPath: "dir/a.txt", Path: "z/a.txt"},
			{Action: domain.FileCreate, Path: "bin", Content: []byte("\x00\x01\x02")},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	diffs, err := b.Diff(ctx, repo, "", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(diffs) != 4 {
		t.Fatalf("diffs = %+v", diffs)
	}
	want := []domain.FileDiff{
		{OldPath: "README", NewPath: "README", AMode: "100644", BMode: "100644", Diff: "@@ -1 +1,2 @@\n one\n+two\n", Additions: 1},
		{OldPath: "bin", NewPath: "bin", AMode: "0", BMode: "100644", NewFile: true, Binary: true, Diff: "Binary files /dev/null and b/bin differ\n"},
		{OldPath: "dir/sub/b.txt", NewPath: "dir/sub/b.txt", AMode: "100644", BMode: "0", DeletedFile: true, Diff: "@@ -1 +0,0 @@\n-b\n", Deletions: 1},
		{OldPath: "dir/a.txt", NewPath: "z/a.txt", AMode: "100644", BMode: "100644", RenamedFile: true},
	}
	for i := range want {
		if diffs[i] != want[i] {
			t.Errorf("diff %d = %+v\nwant %+v", i, diffs[i], want[i])
		}
	}
	if s, err := b.CommitStats(ctx, repo, c.ID); err != nil || s.Additions != 1 || s.Deletions != 1 {
		t.Errorf("CommitStats = %+v, %v", s, err)
	}
	root, err := b.Diff(ctx, repo, "", ids["c1"])
	if err != nil || len(root) != 1 || !root[0].NewFile || root[0].Diff != "@@ -0,0 +1 @@\n+one\n" {
		t.Errorf("root diff = %+v, %v", root, err)
	}
	if _, err := b.Diff(ctx, repo, "-x", "main"); !errors.Is(err, core.ErrInvalid) {
		t.Errorf("hostile from: %v", err)
	}
}

func TestArchive(t *testing.T) {
	t.Parallel()
	b, _, _ := seeded(t)
	ctx := t.Context()
	const repo = "projects/1.git"
	names := func(r io.Reader) []string {
		tr := tar.NewReader(r)
		var out []string
		for {
			h, err := tr.Next()
			if err == io.EOF {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.Typeflag == tar.TypeReg {
				out = append(out, h.Name)
			}
		}
	}
	want := "[p-1/README][p-1/dir/a.txt][p-1/dir/sub/b.txt]"
	for _, format := range []string{"tar", "tar.gz", "tar.bz2", "zip"} {
		var buf bytes.Buffer
		if err := b.Archive(ctx, repo, "main", format, "p-1", &buf); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		var got []string
		switch format {
		case "tar":
			got = names(&buf)
		case "tar.gz":
			zr, err := gzip.NewReader(&buf)
			if err != nil {
				t.Fatal(err)
			}
			got = names(zr)
		case "tar.bz2":
			got = names(bzip2.NewReader(&buf))
		case "zip":
			zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range zr.File {
				if f.Name[len(f.Name)-1] != '/' {
					got = append(got, f.Name)
				}
			}
		}
		if quoteList(got) != want {
			t.Errorf("%s: %v, want %s", format, got, want)
		}
	}
	if err := b.Archive(ctx, repo, "main", "rar", "p", io.Discard); !errors.Is(err, core.ErrInvalid) {
		t.Errorf("rar: %v", err)
	}
	if err := b.Archive(ctx, repo, "main", "tar", "../p", io.Discard); !errors.Is(err, core.ErrInvalid) {
		t.Errorf("../ prefix: %v", err)
	}
}

func TestMergeAndCherryPick(t *testing.T) {
	t.Parallel()
	b, bare, ids := seeded(t)
	ctx := t.Context()
	const repo = "projects/1.git"
	commit := func(branch, start, path, content string) string {
		t.Helper()
		action := domain.FileUpdate
		if _, err := b.File(ctx, repo, branch, path); errors.Is(err, core.ErrNotFound) {
			action = domain.FileCreate
		}
		c, err := b.CommitFiles(ctx, repo, domain.CommitFiles{
			Branch: branch, StartBranch: start, Message: "set " + path, Author: sig("a"), Committer: sig("a"),
			Actions: []domain.FileAction{{Action: action, Path: path, Content: []byte(content)}},
		})
		if err != nil {
			t.Fatal(err)
		}
		return c.ID
	}
	// feature changed README; main changes another file: clean merge.
	commit("main", "", "other.txt", "o\n")
	res, err := b.Merge(ctx, repo, domain.MergeSpec{Ours: "main", Theirs: "feature", Message: "merge", Author: sig("m"), Committer: sig("m")})
	if err != nil || res.CommitID == "" || len(res.Conflicts) != 0 {
		t.Fatalf("Merge = %+v, %v", res, err)
	}
	mergeID := res.CommitID
	parents := gitcli.CleanGit(t, bare, "--git-dir="+bare, "rev-list", "--parents", "-n1", res.CommitID)
	if len(parents) != 3*40+2 || parents[82:] != ids["f1"] {
		t.Errorf("merge parents %q, want <merge> <main> %s", parents, ids["f1"])
	}
	// Conflict: both change README.
	commit("main", "", "README", "main side\n")
	before := gitcli.CleanGit(t, bare, "--git-dir="+bare, "for-each-ref")
	res, err = b.Merge(ctx, repo, domain.MergeSpec{Ours: "main", Theirs: "feature", Message: "merge", Author: sig("m"), Committer: sig("m")})
	if err != nil || res.CommitID != "" || quoteList(res.Conflicts) != "[README]" {
		t.Errorf("conflicting Merge = %+v, %v", res, err)
	}
	dry, err := b.Merge(ctx, repo, domain.MergeSpec{Ours: ids["c3"], Theirs: "feature", DryRun: true})
	if err != nil || dry.CommitID != "" || len(dry.Conflicts) != 0 {
		t.Errorf("dry run = %+v, %v", dry, err)
	}
	if after := gitcli.CleanGit(t, bare, "--git-dir="+bare, "for-each-ref"); after != before {
		t.Errorf("Merge moved refs")
	}

	// Cherry-pick a change of a new file onto feature.
	pickID := commit("main", "", "picked.txt", "p\n")
	cp, err := b.CherryPick(ctx, repo, pickID, "feature", sig("picker"))
	if err != nil || cp.CommitID == "" {
		t.Fatalf("CherryPick = %+v, %v", cp, err)
	}
	c, err := b.Commit(ctx, repo, cp.CommitID)
	if err != nil || c.ParentIDs[0] != ids["f1"] || c.Message != "set picked.txt" || c.Author.Name != "a" || c.Committer.Name != "picker" {
		t.Errorf("picked commit = %+v, %v", c, err)
	}
	if got := gitcli.CleanGit(t, bare, "--git-dir="+bare, "ls-tree", "--name-only", cp.CommitID); got != "README\ndir\npicked.txt" {
		t.Errorf("picked tree:\n%s", got)
	}
	// Picking it again onto its result is empty.
	var ce *core.Error
	if _, err := b.CherryPick(ctx, repo, pickID, cp.CommitID, sig("picker")); !errors.As(err, &ce) || !errors.Is(err, core.ErrInvalid) ||
		ce.Msg != "Sorry, we cannot cherry-pick this commit automatically. This commit may already have been cherry-picked, or a more recent commit may have updated some of its content." {
		t.Errorf("empty cherry-pick: %v", err)
	}
	// README conflicts between main's change and feature's.
	readmeChange := gitcli.CleanGit(t, bare, "--git-dir="+bare, "rev-parse", "main~1")
	cp, err = b.CherryPick(ctx, repo, readmeChange, "feature", sig("picker"))
	if err != nil || quoteList(cp.Conflicts) != "[README]" || cp.CommitID != "" {
		t.Errorf("conflicting cherry-pick = %+v, %v", cp, err)
	}
	if _, err := b.CherryPick(ctx, repo, mergeID, "feature", sig("p")); !errors.Is(err, core.ErrInvalid) {
		t.Errorf("cherry-pick of a merge commit: %v", err)
	}
}
