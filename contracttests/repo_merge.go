package contracttests

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// seedMerges builds histories to merge and cherry-pick:
//
//	B ─ M1                          main (a.txt line 2, c.txt, same.txt)
//	 ├─ K1                          clean (b.txt, new.txt)
//	 ├─ X1                          conflict (a.txt line 2, deletes c.txt, adds same.txt)
//	 └─ P1 ─ P2 ─ MP                pick (a.txt line 9; a.txt line 2; merge of clean)
//
// plus an unrelated root U on orphan.
func (g repoGit) seedMerges(path string) repoHistory {
	g.t.Helper()
	w := g.work()
	h := repoHistory{path: path, c: map[string]string{}}
	w.write(map[string][]byte{"a.txt": repoLines(10, 0, ""), "b.txt": []byte("b\n"), "c.txt": []byte("c\n")})
	h.c["B"] = w.commit(1, "base")
	w.git("checkout", "--quiet", "-b", "clean")
	w.write(map[string][]byte{"b.txt": []byte("b clean\n"), "new.txt": []byte("n\n")})
	h.c["K1"] = w.commit(2, "clean change")
	w.git("checkout", "--quiet", "-b", "conflict", h.c["B"])
	w.write(map[string][]byte{"a.txt": repoLines(10, 2, "theirs"), "c.txt": nil, "same.txt": []byte("theirs\n")})
	h.c["X1"] = w.commit(3, "conflicting change")
	w.git("checkout", "--quiet", "main")
	w.write(map[string][]byte{"a.txt": repoLines(10, 2, "ours"), "c.txt": []byte("c ours\n"), "same.txt": []byte("ours\n")})
	h.c["M1"] = w.commit(4, "main change")
	w.git("checkout", "--quiet", "-b", "pick", h.c["B"])
	w.write(map[string][]byte{"a.txt": repoLines(10, 9, "picked")})
	w.g.as("Pick Author", "pick@example.com").at(5, 3600).run(w.dir, "commit", "--quiet", "-am", "pick me\n\nBody of the pick.")
	h.c["P1"] = w.git("rev-parse", "HEAD")
	w.write(map[string][]byte{"a.txt": []byte(strings.Replace(string(repoLines(10, 9, "picked")), "line 2\n", "line 2 pick\n", 1))})
	h.c["P2"] = w.commit(6, "pick conflict")
	w.g.at(7, 0).run(w.dir, "merge", "--quiet", "--no-ff", "-m", "merge clean", "clean")
	h.c["MP"] = w.git("rev-parse", "HEAD")
	w.git("checkout", "--quiet", "--orphan", "orphan")
	w.git("rm", "--quiet", "-rf", ".")
	w.write(map[string][]byte{"u.txt": []byte("u\n")})
	h.c["U"] = w.commit(8, "unrelated")
	w.push(path)
	return h
}

// pickTreeOf cherry-picks pick onto onto with git cherry-pick in a clone
// of the bare repository at path and returns the resulting tree and the
// sorted conflicting paths.
func (g repoGit) pickTreeOf(path, pick, onto string) (string, []string) {
	g.t.Helper()
	work := g.t.TempDir()
	g.run(work, "clone", "--quiet", "--no-checkout", path, ".")
	g.run(work, "checkout", "--quiet", "--detach", onto)
	if _, err := g.try(work, "cherry-pick", "--no-commit", pick); err != nil {
		var conflicts []string
		for _, p := range strings.Split(g.run(work, "diff", "--name-only", "--diff-filter=U"), "\n") {
			if p != "" && !slices.Contains(conflicts, p) {
				conflicts = append(conflicts, p)
			}
		}
		sort.Strings(conflicts)
		if len(conflicts) == 0 {
			g.t.Fatalf("git cherry-pick %s onto %s: %v", pick, onto, err)
		}
		return "", conflicts
	}
	return g.run(work, "write-tree"), nil
}

// mergeTreeOf runs git merge-tree --write-tree and returns the tree and the
// sorted conflicting paths.
func (g repoGit) mergeTreeOf(path, ours, theirs string) (string, []string) {
	g.t.Helper()
	args := []string{"--git-dir=" + path, "merge-tree", "--write-tree", "--name-only", "--no-messages"}
	out, err := g.try(path, append(args, ours, theirs)...)
	var gerr *repoGitError
	if err != nil && !errors.As(err, &gerr) {
		g.t.Fatal(err)
	}
	lines := strings.Split(out, "\n")
	seen := map[string]bool{}
	var conflicts []string
	for _, p := range lines[1:] {
		if p != "" && !seen[p] {
			seen[p] = true
			conflicts = append(conflicts, p)
		}
	}
	sort.Strings(conflicts)
	if (err != nil) != (len(conflicts) > 0) {
		g.t.Fatalf("git merge-tree %s %s: %v with conflicts %v", ours, theirs, err, conflicts)
	}
	return lines[0], conflicts
}

func repoMerge(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	repoCreate(t, r, "projects/1.git", "main")
	h := g.seedMerges(repoPath(r, "projects/1.git"))
	refs := g.refs(h.path)
	merge := func(ours, theirs string, dry bool) (domain.MergeResult, error) {
		return r.Backend.Merge(ctx, "projects/1.git", domain.MergeSpec{
			Ours: h.c[ours], Theirs: h.c[theirs], Message: "Merge " + theirs + " into " + ours,
			Author: repoAuthor, Committer: repoCommitter, DryRun: dry,
		})
	}
	for _, tc := range [][2]string{{"M1", "K1"}, {"K1", "M1"}, {"M1", "P1"}, {"B", "K1"}, {"K1", "X1"}} {
		wantTree, conflicts := g.mergeTreeOf(h.path, h.c[tc[0]], h.c[tc[1]])
		if len(conflicts) > 0 {
			t.Fatalf("fixture: %v conflicts: %v", tc, conflicts)
		}
		res, err := merge(tc[0], tc[1], false)
		if err != nil {
			t.Errorf("Merge(%s, %s): %v", tc[0], tc[1], err)
			continue
		}
		if len(res.Conflicts) != 0 || res.CommitID == "" || res.TreeID != wantTree {
			t.Errorf("Merge(%s, %s) = %+v; want tree %s and no conflicts", tc[0], tc[1], res, wantTree)
			continue
		}
		c := g.commitOf(h.path, res.CommitID)
		want := domain.Commit{
			ID: res.CommitID, TreeID: wantTree, ParentIDs: []string{h.c[tc[0]], h.c[tc[1]]},
			Author: repoAuthor, Committer: repoCommitter, Message: c.Message,
		}
		if d := cmp.Diff(want, c); d != "" {
			t.Errorf("merge commit of %s, %s (-want +git):\n%s", tc[0], tc[1], d)
		}
		if c.Title() != "Merge "+tc[1]+" into "+tc[0] {
			t.Errorf("merge commit message = %q", c.Message)
		}
		// A dry run agrees and writes no commit.
		dry, err := merge(tc[0], tc[1], true)
		if err != nil || dry.CommitID != "" || len(dry.Conflicts) != 0 {
			t.Errorf("dry Merge(%s, %s) = %+v, %v; want no commit and no conflicts", tc[0], tc[1], dry, err)
		}
	}
	for _, tc := range [][2]string{{"M1", "X1"}, {"X1", "M1"}, {"M1", "P2"}} {
		_, want := g.mergeTreeOf(h.path, h.c[tc[0]], h.c[tc[1]])
		if len(want) == 0 {
			t.Fatalf("fixture: %v has no conflicts", tc)
		}
		for _, dry := range []bool{false, true} {
			res, err := merge(tc[0], tc[1], dry)
			if err != nil {
				t.Errorf("Merge(%s, %s, dry %v): %v", tc[0], tc[1], dry, err)
				continue
			}
			if res.CommitID != "" || !cmp.Equal(res.Conflicts, want) {
				t.Errorf("Merge(%s, %s, dry %v) = %+v; want conflicts %v and no commit", tc[0], tc[1], dry, res, want)
			}
		}
	}
	// Spelled out: content, modify/delete and add/add conflicts.
	if _, want := g.mergeTreeOf(h.path, h.c["M1"], h.c["X1"]); fmt.Sprint(want) != "[a.txt c.txt same.txt]" {
		t.Errorf("git reports conflicts %v", want)
	}
	if got := g.refs(h.path); got != refs {
		t.Errorf("Merge moved refs:\n%s\nwant\n%s", got, refs)
	}
	for _, tc := range []struct {
		ours, theirs string
		kind         error
	}{
		{h.c["M1"], strings.Repeat("a", 40), core.ErrNotFound},
		{strings.Repeat("a", 40), h.c["M1"], core.ErrNotFound},
		{"-x", h.c["M1"], core.ErrInvalid},
		{h.c["M1"], "--all", core.ErrInvalid},
		{h.c["M1"], "a\x00b", core.ErrInvalid},
	} {
		_, err := r.Backend.Merge(ctx, "projects/1.git", domain.MergeSpec{
			Ours: tc.ours, Theirs: tc.theirs, Message: "m", Author: repoAuthor, Committer: repoCommitter})
		repoWantErr(t, fmt.Sprintf("Merge(%q, %q)", tc.ours, tc.theirs), err, tc.kind)
	}
	g.fsck(h.path)
}

func repoCherryPick(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	repoCreate(t, r, "projects/1.git", "main")
	h := g.seedMerges(repoPath(r, "projects/1.git"))
	refs := g.refs(h.path)
	for _, tc := range [][2]string{{"P1", "M1"}, {"K1", "M1"}, {"X1", "K1"}, {"P1", "K1"}} {
		pick := g.commitOf(h.path, h.c[tc[0]])
		wantTree, conflicts := g.pickTreeOf(h.path, pick.ID, h.c[tc[1]])
		if len(conflicts) > 0 {
			t.Fatalf("fixture: picking %s onto %s conflicts: %v", tc[0], tc[1], conflicts)
		}
		res, err := r.Backend.CherryPick(ctx, "projects/1.git", pick.ID, h.c[tc[1]], repoCommitter)
		if err != nil {
			t.Errorf("CherryPick(%s onto %s): %v", tc[0], tc[1], err)
			continue
		}
		if len(res.Conflicts) != 0 || res.TreeID != wantTree {
			t.Errorf("CherryPick(%s onto %s) = %+v; want tree %s", tc[0], tc[1], res, wantTree)
			continue
		}
		want := domain.Commit{
			ID: res.CommitID, TreeID: wantTree, ParentIDs: []string{h.c[tc[1]]},
			Author: pick.Author, Committer: repoCommitter, Message: pick.Message,
		}
		if d := cmp.Diff(want, g.commitOf(h.path, res.CommitID)); d != "" {
			t.Errorf("cherry-picked %s onto %s (-want +git):\n%s", tc[0], tc[1], d)
		}
	}
	// Spelled out: the pick keeps its author and message.
	res, err := r.Backend.CherryPick(ctx, "projects/1.git", h.c["P1"], "main", repoCommitter)
	if err != nil {
		t.Fatalf("CherryPick(P1 onto main by name): %v", err)
	}
	c := g.commitOf(h.path, res.CommitID)
	if c.Author.Name != "Pick Author" || !c.Author.When.Equal(repoWhen(5)) || c.Message != "pick me\n\nBody of the pick.\n" {
		t.Errorf("cherry-pick commit = %+v", c)
	}
	if got := g.filesOf(h.path, res.CommitID)["a.txt"]; got != strings.Replace(string(repoLines(10, 9, "picked")), "line 2\n", "line 2 ours\n", 1) {
		t.Errorf("cherry-picked a.txt = %q", got)
	}

	// A conflict: P2 changes line 2, which main changed too.
	p2 := g.commitOf(h.path, h.c["P2"])
	_, want := g.pickTreeOf(h.path, p2.ID, h.c["M1"])
	res, err = r.Backend.CherryPick(ctx, "projects/1.git", p2.ID, h.c["M1"], repoCommitter)
	if err != nil || res.CommitID != "" || len(want) == 0 || !cmp.Equal(res.Conflicts, want) {
		t.Errorf("conflicting CherryPick = %+v, %v; want conflicts %v", res, err, want)
	}
	for _, tc := range []struct {
		what, sha, onto string
		kind            error
	}{
		{"already applied (its own branch)", h.c["K1"], h.c["K1"], core.ErrInvalid},
		{"already applied (merged)", h.c["K1"], h.c["MP"], core.ErrInvalid},
		{"a merge commit", h.c["MP"], h.c["M1"], core.ErrInvalid},
		{"unknown commit", strings.Repeat("b", 40), h.c["M1"], core.ErrNotFound},
		{"unknown onto", h.c["P1"], strings.Repeat("b", 40), core.ErrNotFound},
		{"hostile sha", "-x", h.c["M1"], core.ErrInvalid},
		{"hostile onto", h.c["P1"], "--all", core.ErrInvalid},
	} {
		_, err := r.Backend.CherryPick(ctx, "projects/1.git", tc.sha, tc.onto, repoCommitter)
		repoWantErr(t, "CherryPick of "+tc.what, err, tc.kind)
	}
	if got := g.refs(h.path); got != refs {
		t.Errorf("CherryPick moved refs:\n%s\nwant\n%s", got, refs)
	}
	g.fsck(h.path)
}
