package gogit_test

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os/exec"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/adapters/git/gitcli"
	"github.com/hearth-forge/hearth/adapters/git/gogit"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// bundler is a git backend that also bundles.
type bundler interface {
	ports.RepoBackend
	ports.RepoBundler
}

// TestBundleAcrossBackends: a bundle written by either backend restores
// with either, with the same refs (branches, an annotated tag, a merge
// request ref) and HEAD, and git itself reads gogit's bundle.
func TestBundleAcrossBackends(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cli, err := gitcli.New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	gg, err := gogit.New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sig := domain.Signature{Name: "T", Email: "t@example.com"}
	backends := map[string]bundler{"gitcli": cli, "gogit": gg}
	for name, b := range backends {
		if err := b.Create(ctx, "p/1.git", "main"); err != nil {
			t.Fatal(err)
		}
		for i, branch := range []string{"main", "side"} {
			start := ""
			if i > 0 {
				start = "main"
			}
			if _, err := b.CommitFiles(ctx, "p/1.git", domain.CommitFiles{Branch: branch, StartBranch: start,
				Message: "on " + branch, Author: sig, Committer: sig,
				Actions: []domain.FileAction{{Action: "create", Path: branch + "/f.txt", Content: []byte(branch)}}}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if _, err := b.CreateTag(ctx, "p/1.git", "v1", "main", "release", sig); err != nil {
			t.Fatal(err)
		}
		side, _ := b.Resolve(ctx, "p/1.git", "side")
		if err := b.UpdateRef(ctx, "p/1.git", "refs/merge-requests/1/head", side, domain.ZeroID); err != nil {
			t.Fatal(err)
		}
		if err := b.Create(ctx, "p/empty.git", "dev"); err != nil {
			t.Fatal(err)
		}
	}
	for from, src := range backends {
		var bundle bytes.Buffer
		empty, err := src.Bundle(ctx, "p/1.git", &bundle)
		if err != nil || empty {
			t.Fatalf("%s bundle: empty %v, %v", from, empty, err)
		}
		if empty, err := src.Bundle(ctx, "p/empty.git", &bytes.Buffer{}); err != nil || !empty {
			t.Errorf("%s bundle of an empty repository: empty %v, %v", from, empty, err)
		}
		if _, err := src.Bundle(ctx, "p/none.git", &bytes.Buffer{}); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("%s bundle of a missing repository: %v", from, err)
		}
		want := refsOf(t, src, "p/1.git")
		for to, dst := range backends {
			repo := "restored/" + from + ".git"
			if err := dst.Unbundle(ctx, repo, "main", bytes.NewReader(bundle.Bytes())); err != nil {
				t.Fatalf("%s -> %s: %v", from, to, err)
			}
			if got := refsOf(t, dst, repo); !maps.Equal(got, want) {
				t.Errorf("%s -> %s: refs %v, want %v", from, to, got, want)
			}
			if f, err := dst.File(ctx, repo, "side", "side/f.txt"); err != nil || string(f.Content) != "side" {
				t.Errorf("%s -> %s: file %q, %v", from, to, f.Content, err)
			}
			if err := dst.Unbundle(ctx, repo, "main", nil); !errors.Is(err, core.ErrConflict) {
				t.Errorf("%s -> %s: unbundle over a repository: %v", from, to, err)
			}
			if err := dst.Unbundle(ctx, "restored/"+from+"-empty.git", "dev", nil); err != nil {
				t.Fatal(err)
			}
			if br, _ := dst.DefaultBranch(ctx, "restored/"+from+"-empty.git"); br != "dev" {
				t.Errorf("%s -> %s: empty repository's HEAD names %q", from, to, br)
			}
		}
		if from == "gogit" {
			// git itself accepts the bundle gogit wrote.
			cmd := exec.Command("git", "bundle", "list-heads", "/dev/stdin")
			cmd.Stdin = bytes.NewReader(bundle.Bytes())
			if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "refs/merge-requests/1/head") {
				t.Errorf("git bundle list-heads of gogit's bundle: %v\n%s", err, out)
			}
		}
	}
	if err := gg.Unbundle(ctx, "bad.git", "main", strings.NewReader("not a bundle\n")); !errors.Is(err, core.ErrInvalid) {
		t.Errorf("gogit unbundle of garbage: %v", err)
	}
}

// refsOf maps every ref of repo (branches, tags, the merge request head) to
// its object.
func refsOf(t *testing.T, b bundler, repo string) map[string]string {
	t.Helper()
	ctx := context.Background()
	refs := map[string]string{}
	for _, name := range []string{"main", "side", "v1", "refs/merge-requests/1/head"} {
		id, err := b.Resolve(ctx, repo, name)
		if err != nil {
			t.Fatalf("%s %s: %v", repo, name, err)
		}
		refs[name] = id
	}
	tag, err := b.Tag(ctx, repo, "v1")
	if err != nil {
		t.Fatal(err)
	}
	if tag.Message != nil {
		refs["tag v1 message"] = *tag.Message
	}
	head, _ := b.DefaultBranch(ctx, repo)
	refs["HEAD"] = head
	return refs
}
