// Package compare_test replays one deterministic script of writes and reads
// on the gitcli and gogit backends, each over its own root, and requires
// identical answers: the same commit SHAs for the same writes, the same
// refs, trees, blobs, diffs, merges, conflicts, cherry-picks, tags and
// error kinds.
package compare_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap/zaptest"

	"github.com/hearth-forge/hearth/adapters/git/gitcli"
	"github.com/hearth-forge/hearth/contracttests"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// pair is the two backends under comparison.
type pair struct {
	t          *testing.T
	names      [2]string
	backends   [2]ports.RepoBackend
	roots      [2]string
	mismatches int
}

func newPair(t *testing.T) *pair {
	t.Helper()
	cliRoot, otherRoot := t.TempDir(), t.TempDir()
	cli, err := gitcli.New(cliRoot, zaptest.NewLogger(t, zaptest.Level(zapInfo)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	name, other := newOther(t, otherRoot)
	return &pair{
		t:        t,
		names:    [2]string{"gitcli", name},
		backends: [2]ports.RepoBackend{cli, other},
		roots:    [2]string{cliRoot, otherRoot},
	}
}

// kind names the core error kind of err ("" for nil).
func kind(err error) string {
	if err == nil {
		return ""
	}
	for _, k := range []error{
		core.ErrNotFound, core.ErrConflict, core.ErrInvalid, core.ErrStale, core.ErrNotAllowed,
		core.ErrForbidden, core.ErrTooLarge, core.ErrInternal,
	} {
		if errors.Is(err, k) {
			return k.Error()
		}
	}
	return "untyped error"
}

// outcome is what one call gave: its value and the kind of its error.
type outcome struct {
	Value any
	Err   string
}

// same runs fn on both backends and fails unless the outcomes agree; it
// returns gitcli's value.
func same[T any](p *pair, what string, fn func(b ports.RepoBackend) (T, error)) T {
	p.t.Helper()
	var outs [2]outcome
	var first T
	var errs [2]error
	for i, b := range p.backends {
		v, err := fn(b)
		errs[i] = err
		if i == 0 {
			first = v
		}
		if err != nil {
			outs[i] = outcome{Err: kind(err)}
			continue
		}
		outs[i] = outcome{Value: v}
	}
	if d := cmp.Diff(outs[0], outs[1]); d != "" {
		p.mismatches++
		p.t.Errorf("%s: %s and %s differ (-%s +%s):\n%s\nerrors: %v | %v", what, p.names[0], p.names[1], p.names[0], p.names[1], d, errs[0], errs[1])
	}
	return first
}

// sameErr is same for calls that return only an error.
func sameErr(p *pair, what string, fn func(b ports.RepoBackend) error) {
	p.t.Helper()
	same(p, what, func(b ports.RepoBackend) (struct{}, error) { return struct{}{}, fn(b) })
}

// when is hour h of the script, in zone offset seconds east of UTC.
func when(h, offset int) time.Time {
	return time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(h) * time.Hour).In(time.FixedZone("", offset))
}

func sig(name string, h, offset int) domain.Signature {
	return domain.Signature{Name: name, Email: strings.ToLower(strings.ReplaceAll(name, " ", ".")) + "@example.com", When: when(h, offset)}
}

func TestBackendsAgreeOnWrites(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	const repo = "projects/1.git"
	sameErr(p, "Create", func(b ports.RepoBackend) error { return b.Create(t.Context(), repo, "main") })
	hour := 0
	commit := func(what string, req domain.CommitFiles) domain.Commit {
		t.Helper()
		hour++
		if req.Author.Name == "" {
			req.Author = sig("Ann Author", hour, 2*3600)
		}
		if req.Committer.Name == "" {
			req.Committer = sig("Carl Committer", hour, -7*3600)
		}
		if req.Message == "" {
			req.Message = what
		}
		return same(p, "CommitFiles "+what, func(b ports.RepoBackend) (domain.Commit, error) {
			r := req
			r.Actions = append([]domain.FileAction(nil), req.Actions...)
			return b.CommitFiles(t.Context(), repo, r)
		})
	}
	create := func(path, content string) domain.FileAction {
		return domain.FileAction{Action: domain.FileCreate, Path: path, Content: []byte(content)}
	}
	bin := []byte{0, 1, 2, 3, 0xff, 0xfe, 0, 'x', '\n'}
	c1 := commit("first", domain.CommitFiles{Branch: "main", Message: "first\n\nwith a body\n", Actions: []domain.FileAction{
		create("README.md", "# title\n\nline\n"), create("src/a.go", "package a\n"), create("src/b/c.go", "package b\n"),
		create("-x", "dash\n"), create("Zed", "z"), create("bin.dat", string(bin)), create("empty", ""),
		create("z/deep/er/file.txt", "deep\n"),
	}})
	c2 := commit("second", domain.CommitFiles{Branch: "main", Message: "second without newline", Actions: []domain.FileAction{
		{Action: domain.FileUpdate, Path: "README.md", Content: []byte("# title\n\nline\nmore\n")},
		{Action: domain.FileMove, Path: "src/moved.go", PreviousPath: "src/a.go"},
		{Action: domain.FileMove, Path: "bin2.dat", PreviousPath: "bin.dat", Content: []byte("now text\n")},
		{Action: domain.FileDelete, Path: "z/deep/er/file.txt"},
	}})
	commit("feature start", domain.CommitFiles{Branch: "feature", StartBranch: "main", ExpectedHead: domain.ZeroID, Actions: []domain.FileAction{
		create("feature.txt", "f\n"), {Action: domain.FileUpdate, Path: "README.md", Content: []byte("# feature\n\nline\nmore\n")},
	}})
	commit("main again", domain.CommitFiles{Branch: "main", ExpectedHead: c2.ID, Actions: []domain.FileAction{
		{Action: domain.FileUpdate, Path: "src/b/c.go", Content: []byte("package b\n\nfunc C() {}\n")},
	}})
	commit("conflicting", domain.CommitFiles{Branch: "clash", StartBranch: "main", Actions: []domain.FileAction{
		{Action: domain.FileUpdate, Path: "README.md", Content: []byte("# clash\n\nline\nmore\n")},
	}})
	commit("unicode ✓ message\r\n", domain.CommitFiles{Branch: "main", Author: domain.Signature{Name: "Zoë Ünicode", Email: "zoe@example.com", When: when(40, 5*3600+1800)},
		Actions: []domain.FileAction{create("ünï/cödé.txt", "ü\n")}})
	// Refused commits agree too.
	for _, tc := range []struct {
		what string
		req  domain.CommitFiles
	}{
		{"exists", domain.CommitFiles{Branch: "main", Actions: []domain.FileAction{create("-x", "again")}}},
		{"missing", domain.CommitFiles{Branch: "main", Actions: []domain.FileAction{{Action: domain.FileDelete, Path: "nope"}}}},
		{"no branch", domain.CommitFiles{Branch: "nope", Actions: []domain.FileAction{create("a", "a")}}},
		{"stale", domain.CommitFiles{Branch: "main", ExpectedHead: c1.ID, Actions: []domain.FileAction{create("a", "a")}}},
		{"traversal", domain.CommitFiles{Branch: "main", Actions: []domain.FileAction{create("../a", "a")}}},
		{"dot git", domain.CommitFiles{Branch: "main", Actions: []domain.FileAction{create(".git/config", "a")}}},
		{"file over dir", domain.CommitFiles{Branch: "main", Actions: []domain.FileAction{create("src", "a")}}},
		{"dir over file", domain.CommitFiles{Branch: "main", Actions: []domain.FileAction{create("Zed/x", "a")}}},
	} {
		req := tc.req
		req.Author, req.Committer, req.Message = sig("A", 1, 0), sig("C", 1, 0), "refused"
		same(p, "refused CommitFiles "+tc.what, func(b ports.RepoBackend) (domain.Commit, error) {
			return b.CommitFiles(t.Context(), repo, req)
		})
	}

	// Tags.
	tagger := sig("Tina Tagger", 50, -3*3600)
	for _, tc := range []struct{ name, target, msg string }{
		{"v1", "main", ""},
		{"v2", c1.ID, "Release 2\n\nNotes.\n"},
		{"v3", "feature", "one line"},
		{"v1", "main", ""},           // exists
		{"v4", "nope", "x"},          // unknown target
		{"-bad", "main", "x"},        // invalid
		{"rel/v5", "v2", "on a tag"}, // a tag of a tag name
	} {
		same(p, "CreateTag "+tc.name, func(b ports.RepoBackend) (domain.Tag, error) {
			return b.CreateTag(t.Context(), repo, tc.name, tc.target, tc.msg, tagger)
		})
	}

	// Merges.
	head := func(branch string) string {
		return same(p, "Resolve "+branch, func(b ports.RepoBackend) (string, error) { return b.Resolve(t.Context(), repo, branch) })
	}
	mainID, featureID, clashID := head("main"), head("feature"), head("clash")
	for _, tc := range []struct {
		what         string
		ours, theirs string
		dry          bool
	}{
		{"clean", mainID, featureID, false},
		{"clean dry", mainID, featureID, true},
		{"reverse", featureID, mainID, false},
		{"conflict", clashID, featureID, false},
		{"conflict dry", clashID, featureID, true},
		{"unknown", mainID, strings.Repeat("a", 40), false},
	} {
		same(p, "Merge "+tc.what, func(b ports.RepoBackend) (domain.MergeResult, error) {
			return b.Merge(t.Context(), repo, domain.MergeSpec{
				Ours: tc.ours, Theirs: tc.theirs, Message: "Merge " + tc.what + "\n",
				Author: sig("Merger", 60, 3600), Committer: sig("Merger", 61, 3600), DryRun: tc.dry,
			})
		})
	}
	merged := same(p, "Merge for ref", func(b ports.RepoBackend) (domain.MergeResult, error) {
		return b.Merge(t.Context(), repo, domain.MergeSpec{Ours: mainID, Theirs: featureID, Message: "merge",
			Author: sig("M", 62, 0), Committer: sig("M", 62, 0)})
	})
	sameErr(p, "UpdateRef main to the merge", func(b ports.RepoBackend) error {
		return b.UpdateRef(t.Context(), repo, "refs/heads/main", merged.CommitID, mainID)
	})
	sameErr(p, "UpdateRef stale", func(b ports.RepoBackend) error {
		return b.UpdateRef(t.Context(), repo, "refs/heads/main", mainID, mainID)
	})

	// Cherry-picks.
	for _, tc := range []struct{ what, sha, onto string }{
		{"clean", featureID, clashID},
		{"conflict", clashID, featureID},
		{"already there", featureID, merged.CommitID},
		{"merge commit", merged.CommitID, c1.ID},
		{"root", c1.ID, featureID},
	} {
		same(p, "CherryPick "+tc.what, func(b ports.RepoBackend) (domain.MergeResult, error) {
			return b.CherryPick(t.Context(), repo, tc.sha, tc.onto, sig("Picker", 70, -3600))
		})
	}
	compareReads(p, repo, nil)
	if p.mismatches > 0 {
		t.Logf("%d mismatches between %s and %s", p.mismatches, p.names[0], p.names[1])
	}
}

// TestBackendsAgreeOnGitHistories compares the backends on histories git
// itself wrote (contracttests' seeds), one repository per parallel
// subtest, each over its own pair of roots.
func TestBackendsAgreeOnGitHistories(t *testing.T) {
	t.Parallel()
	t.Run("rich", func(t *testing.T) {
		t.Parallel()
		p := newPair(t)
		const repo = "projects/rich.git"
		var named map[string]string
		for i, b := range p.backends {
			if err := b.Create(t.Context(), repo, "main"); err != nil {
				t.Fatal(err)
			}
			c := contracttests.SeedRepoHistory(t, filepath.Join(p.roots[i], filepath.FromSlash(repo)))
			if named != nil && !cmp.Equal(named, c) {
				t.Fatalf("the git-seeded history is not reproducible: %v vs %v", named, c)
			}
			named = c
		}
		compareReads(p, repo, []string{"Upper", "a/b", "v1.0", "v2.0", "light", "refs/tags/feature", "refs/merge-requests/1/head"})
	})
	t.Run("merges", func(t *testing.T) {
		t.Parallel()
		p := newPair(t)
		const repo = "projects/merges.git"
		for i, b := range p.backends {
			if err := b.Create(t.Context(), repo, "main"); err != nil {
				t.Fatal(err)
			}
			contracttests.SeedMergeHistory(t, filepath.Join(p.roots[i], filepath.FromSlash(repo)))
		}
		compareReads(p, repo, nil)
		compareMerges(p, repo)
	})
}

// compareMerges merges every pair of the merge history's branches and
// cherry-picks every commit of "pick" onto each of them.
func compareMerges(p *pair, repo string) {
	t := p.t
	t.Helper()
	revs := []string{"main", "clean", "conflict", "pick", "orphan"}
	for _, a := range revs {
		for _, b := range revs {
			same(p, "Merge "+a+" "+b, func(be ports.RepoBackend) (domain.MergeResult, error) {
				ours, err := be.Resolve(t.Context(), repo, a)
				if err != nil {
					return domain.MergeResult{}, err
				}
				theirs, err := be.Resolve(t.Context(), repo, b)
				if err != nil {
					return domain.MergeResult{}, err
				}
				return be.Merge(t.Context(), repo, domain.MergeSpec{Ours: ours, Theirs: theirs, Message: "m\n",
					Author: sig("M", 1, 0), Committer: sig("M", 1, 0)})
			})
		}
	}
	logs := same(p, "Log --all", func(b ports.RepoBackend) ([]domain.Commit, error) {
		return b.Log(t.Context(), repo, domain.LogQuery{Ref: "pick"})
	})
	for _, c := range logs {
		for _, onto := range revs {
			same(p, "CherryPick "+c.ID[:8]+" onto "+onto, func(b ports.RepoBackend) (domain.MergeResult, error) {
				return b.CherryPick(t.Context(), repo, c.ID, onto, sig("P", 2, 0))
			})
		}
	}
}

// compareReads compares every read of repo on both backends: refs, each
// commit, its stats, diff, tree (recursive and per directory), every file
// and blob, logs, merge bases, archives and error answers.
func compareReads(p *pair, repo string, extraRevs []string) {
	t := p.t
	t.Helper()
	ctx := t.Context()
	same(p, "DefaultBranch", func(b ports.RepoBackend) (string, error) { return b.DefaultBranch(ctx, repo) })
	same(p, "IsEmpty", func(b ports.RepoBackend) (bool, error) { return b.IsEmpty(ctx, repo) })
	branches := same(p, "Branches", func(b ports.RepoBackend) ([]domain.Branch, error) { return b.Branches(ctx, repo) })
	tags := same(p, "Tags", func(b ports.RepoBackend) ([]domain.Tag, error) { return b.Tags(ctx, repo) })
	revs := append([]string{"HEAD", "nope", "refs/heads/nope", "-x", "main~1", strings.Repeat("0", 40)}, extraRevs...)
	for _, br := range branches {
		revs = append(revs, br.Name, "refs/heads/"+br.Name)
		same(p, "Branch "+br.Name, func(b ports.RepoBackend) (domain.Branch, error) { return b.Branch(ctx, repo, br.Name) })
	}
	for _, tg := range tags {
		revs = append(revs, tg.Name, "refs/tags/"+tg.Name)
		same(p, "Tag "+tg.Name, func(b ports.RepoBackend) (domain.Tag, error) { return b.Tag(ctx, repo, tg.Name) })
	}
	same(p, "Branch nope", func(b ports.RepoBackend) (domain.Branch, error) { return b.Branch(ctx, repo, "nope") })
	same(p, "Tag nope", func(b ports.RepoBackend) (domain.Tag, error) { return b.Tag(ctx, repo, "nope") })

	commits := map[string]bool{}
	for _, rev := range revs {
		id := same(p, "Resolve "+rev, func(b ports.RepoBackend) (string, error) { return b.Resolve(ctx, repo, rev) })
		if id == "" {
			continue
		}
		log := same(p, "Log "+rev, func(b ports.RepoBackend) ([]domain.Commit, error) {
			return b.Log(ctx, repo, domain.LogQuery{Ref: rev})
		})
		for _, c := range log {
			commits[c.ID] = true
		}
		for _, limit := range []int{0, 2} {
			same(p, fmt.Sprintf("Contributors %s %d", rev, limit), func(b ports.RepoBackend) ([]domain.Contributor, error) {
				return b.Contributors(ctx, repo, rev, limit)
			})
		}
		for _, q := range []domain.LogQuery{
			{Ref: rev, Skip: 1, Limit: 2},
			{Ref: rev, Path: "README"},
			{Ref: rev, Path: "README.md"},
			{Ref: rev, Path: "src"},
			{Ref: rev, Exclude: []string{"feature"}},
			{Ref: rev, Since: ptr(time.Date(2024, 1, 1, 3, 0, 0, 0, time.UTC)), Until: ptr(time.Date(2024, 5, 1, 6, 0, 0, 0, time.UTC))},
		} {
			same(p, fmt.Sprintf("Log %+v", q), func(b ports.RepoBackend) ([]domain.Commit, error) { return b.Log(ctx, repo, q) })
			same(p, fmt.Sprintf("CountCommits %+v", q), func(b ports.RepoBackend) (int, error) { return b.CountCommits(ctx, repo, q) })
		}
		for _, format := range []string{"tar.gz", "zip", "bad"} {
			same(p, "Archive "+rev+" "+format, func(b ports.RepoBackend) ([]string, error) {
				var buf bytes.Buffer
				if err := b.Archive(ctx, repo, rev, format, "pre/fix", &buf); err != nil {
					return nil, err
				}
				return archiveEntries(format, buf.Bytes())
			})
		}
	}
	ids := make([]string, 0, len(commits))
	for id := range commits {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		same(p, "Commit "+id, func(b ports.RepoBackend) (domain.Commit, error) { return b.Commit(ctx, repo, id) })
		same(p, "Commit "+id[:7], func(b ports.RepoBackend) (domain.Commit, error) { return b.Commit(ctx, repo, id[:7]) })
		same(p, "CommitStats "+id, func(b ports.RepoBackend) (domain.CommitStats, error) { return b.CommitStats(ctx, repo, id) })
		same(p, "Diff "+id, func(b ports.RepoBackend) ([]domain.FileDiff, error) { return b.Diff(ctx, repo, "", id) })
		entries := same(p, "Tree -r "+id, func(b ports.RepoBackend) ([]domain.TreeEntry, error) { return b.Tree(ctx, repo, id, "", true) })
		same(p, "Tree "+id, func(b ports.RepoBackend) ([]domain.TreeEntry, error) { return b.Tree(ctx, repo, id, "", false) })
		for _, e := range entries {
			switch e.Type {
			case "tree":
				same(p, "Tree "+id+" "+e.Path, func(b ports.RepoBackend) ([]domain.TreeEntry, error) {
					return b.Tree(ctx, repo, id, e.Path, false)
				})
				same(p, "File of a directory "+e.Path, func(b ports.RepoBackend) (domain.File, error) { return b.File(ctx, repo, id, e.Path) })
			case "blob":
				same(p, "File "+id+" "+e.Path, func(b ports.RepoBackend) (domain.File, error) { return b.File(ctx, repo, id, e.Path) })
				same(p, "Tree of a file "+e.Path, func(b ports.RepoBackend) ([]domain.TreeEntry, error) {
					return b.Tree(ctx, repo, id, e.Path, false)
				})
				same(p, "Blob "+e.ID, func(b ports.RepoBackend) (domain.Blob, error) { return b.Blob(ctx, repo, e.ID[:9]) })
			}
		}
	}
	for i, a := range ids {
		for _, b := range ids[i:] {
			same(p, "Diff "+a[:8]+".."+b[:8], func(be ports.RepoBackend) ([]domain.FileDiff, error) { return be.Diff(ctx, repo, a, b) })
			same(p, "MergeBase "+a[:8]+" "+b[:8], func(be ports.RepoBackend) (string, error) { return be.MergeBase(ctx, repo, a, b) })
			same(p, "IsAncestor "+a[:8]+" "+b[:8], func(be ports.RepoBackend) (bool, error) { return be.IsAncestor(ctx, repo, a, b) })
			same(p, "IsAncestor "+b[:8]+" "+a[:8], func(be ports.RepoBackend) (bool, error) { return be.IsAncestor(ctx, repo, b, a) })
		}
	}
	for _, bad := range []string{"../x", "/abs", "a\x00b", "nope/deeper"} {
		same(p, "File "+quote(bad), func(b ports.RepoBackend) (domain.File, error) { return b.File(ctx, repo, "HEAD", bad) })
		same(p, "Tree "+quote(bad), func(b ports.RepoBackend) ([]domain.TreeEntry, error) { return b.Tree(ctx, repo, "HEAD", bad, false) })
	}
	var adv [2][]byte
	for i, b := range p.backends {
		var buf bytes.Buffer
		err := b.AdvertiseRefs(ctx, repo, "git-upload-pack", "", &buf)
		if errors.Is(err, core.ErrNotAllowed) {
			// A documented capability answer (gogit serves no transport);
			// RunRepoSuite checks the message and that nothing moves.
			t.Logf("%s: %v", p.names[i], err)
			return
		}
		if err != nil {
			t.Errorf("%s: AdvertiseRefs: %v", p.names[i], err)
		}
		adv[i] = buf.Bytes()
	}
	// Capabilities and agent strings differ between implementations; the
	// refs advertised must not.
	if a, b := advertisedRefs(adv[0]), advertisedRefs(adv[1]); !cmp.Equal(a, b) {
		t.Errorf("advertised refs differ:\n%s", cmp.Diff(a, b))
	}
}

func ptr[T any](v T) *T { return &v }

func quote(s string) string { return fmt.Sprintf("%q", s) }

// advertisedRefs is the "<oid> <ref>" lines of a v0 advertisement.
func advertisedRefs(adv []byte) []string {
	var refs []string
	for len(adv) >= 4 {
		var n int
		if _, err := fmt.Sscanf(string(adv[:4]), "%04x", &n); err != nil || n < 4 || n > len(adv) {
			if n == 0 {
				adv = adv[4:]
				continue
			}
			break
		}
		line := string(adv[4:n])
		adv = adv[n:]
		line, _, _ = strings.Cut(line, "\x00")
		refs = append(refs, strings.TrimSuffix(line, "\n"))
	}
	sort.Strings(refs)
	return refs
}

// archiveEntries lists an archive's entries as "name" (directories end in
// "/") followed by the content of files.
func archiveEntries(format string, b []byte) ([]string, error) {
	var entries []string
	switch format {
	case "zip":
		zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return nil, err
		}
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				return nil, err
			}
			c, err := io.ReadAll(rc)
			_ = rc.Close()
			if err != nil {
				return nil, err
			}
			entries = append(entries, f.Name+" "+string(c))
		}
	default:
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		tr := tar.NewReader(zr)
		for {
			hdr, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, err
			}
			if hdr.Typeflag == tar.TypeXGlobalHeader {
				continue
			}
			c, err := io.ReadAll(tr)
			if err != nil {
				return nil, err
			}
			entries = append(entries, fmt.Sprintf("%s %o %s", hdr.Name, hdr.Mode&0o111, c))
		}
	}
	sort.Strings(entries)
	return entries, nil
}
