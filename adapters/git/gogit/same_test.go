package gogit_test

import (
	"testing"
	"time"

	"github.com/hearth-forge/hearth/adapters/git/gitcli"
	"github.com/hearth-forge/hearth/adapters/git/gogit"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// TestSameObjectsAsGitcli replays commits, a tag, a merge and a
// cherry-pick on both backends and requires the same object names.
func TestSameObjectsAsGitcli(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	cli, err := gitcli.New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	gg, err := gogit.New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	when := time.Unix(1700000000, 0).In(time.FixedZone("", 3600))
	sig := domain.Signature{Name: " Ann Example ", Email: "ann@example.com", When: when}
	run := func(b ports.RepoBackend) []string {
		var ids []string
		if err := b.Create(ctx, "p/1.git", "main"); err != nil {
			t.Fatal(err)
		}
		commit := func(branch, start, msg string, acts ...domain.FileAction) string {
			c, err := b.CommitFiles(ctx, "p/1.git", domain.CommitFiles{Branch: branch, StartBranch: start,
				Message: msg, Author: sig, Committer: sig, Actions: acts})
			if err != nil {
				t.Fatalf("CommitFiles %s: %v", msg, err)
			}
			ids = append(ids, c.ID, c.TreeID)
			return c.ID
		}
		commit("main", "", "first", domain.FileAction{Action: domain.FileCreate, Path: "a/b.txt", Content: []byte("1\n2\n3\n4\n5\n6\n7\n8\n9\n")},
			domain.FileAction{Action: domain.FileCreate, Path: "a.txt", Content: []byte("x")},
			domain.FileAction{Action: domain.FileCreate, Path: "z", Content: []byte("z\n")})
		commit("side", "main", "side edit\n", domain.FileAction{Action: domain.FileUpdate, Path: "a/b.txt", Content: []byte("one\n2\n3\n4\n5\n6\n7\n8\n9\n")})
		pick := commit("side", "", "side move", domain.FileAction{Action: domain.FileMove, PreviousPath: "z", Path: "d/z"})
		main := commit("main", "", "main edit", domain.FileAction{Action: domain.FileUpdate, Path: "a/b.txt", Content: []byte("1\n2\n3\n4\n5\n6\n7\n8\nnine\n")})
		tag, err := b.CreateTag(ctx, "p/1.git", "v1", "main", "release\n\nnotes", sig)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tag.TargetID)
		side, err := b.Resolve(ctx, "p/1.git", "side")
		if err != nil {
			t.Fatal(err)
		}
		m, err := b.Merge(ctx, "p/1.git", domain.MergeSpec{Ours: main, Theirs: side, Message: "Merge", Author: sig, Committer: sig})
		if err != nil || len(m.Conflicts) > 0 {
			t.Fatalf("Merge: %+v %v", m, err)
		}
		ids = append(ids, m.CommitID, m.TreeID)
		cp, err := b.CherryPick(ctx, "p/1.git", pick, main, sig)
		if err != nil {
			t.Fatalf("CherryPick: %v", err)
		}
		ids = append(ids, cp.CommitID)
		return ids
	}
	want, got := run(cli), run(gg)
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("object %d: gogit %v, gitcli %v", i, got, want)
		}
	}
}
