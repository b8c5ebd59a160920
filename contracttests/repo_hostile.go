package contracttests

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/hearth-forge/hearth/core"
)

// repoHostileRepoNames are repository names every method must refuse with
// core.ErrInvalid, before touching the file system.
var repoHostileRepoNames = []string{
	"",
	"x",
	"x.git/",
	".git",
	"../x.git",
	"a/../../b.git",
	"a/../b.git",
	"./a.git",
	"a/./b.git",
	"/abs.git",
	"//abs.git",
	"a//b.git",
	`a\b.git`,
	`..\x.git`,
	"a\x00.git",
	"a\n.git",
	"a\x7f.git",
	"-x.git",
	"a/-x.git",
	"--upload-pack=touch.git",
	".hidden.git",
	"a.git/b.git", // a repository inside another
	"projects/1",
	"projects/1.git.lock",
}

func quote(v any) string { return fmt.Sprintf("%q", v) }

// repoListing names every entry under dir, recursively.
func repoListing(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(path string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		names = append(names, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	return names
}

func repoHostileNames(t *testing.T, r Repo) {
	g := newRepoGit(t)
	ctx := t.Context()
	repoSeeded(t, r, g, "projects/1.git")
	outside := filepath.Dir(r.Root)
	before := quote(repoListing(t, outside))

	for _, name := range repoHostileRepoNames {
		q := quote(name)
		repoWantErr(t, "Create "+q, r.Backend.Create(ctx, name, "main"), core.ErrInvalid)
		repoWantErr(t, "Delete "+q, r.Backend.Delete(ctx, name), core.ErrInvalid)
		ok, err := r.Backend.Exists(ctx, name)
		repoWantErr(t, "Exists "+q, err, core.ErrInvalid)
		if ok {
			t.Errorf("Exists %s = true", q)
		}
		_, _, err = r.Backend.Stats(ctx, name, "main")
		repoWantErr(t, "Stats "+q, err, core.ErrInvalid)
		repoWantErr(t, "Fork from "+q, r.Backend.Fork(ctx, name, "projects/2.git"), core.ErrInvalid)
		repoWantErr(t, "Fork to "+q, r.Backend.Fork(ctx, "projects/1.git", name), core.ErrInvalid)
	}
	// Nothing was created, removed or changed anywhere, inside the root or
	// next to it.
	if after := quote(repoListing(t, outside)); after != before {
		t.Errorf("hostile names changed the file system:\nbefore %s\nafter  %s", before, after)
	}
	g.fsck(repoPath(r, "projects/1.git"))
	if got := g.bare(repoPath(r, "projects/1.git"), "rev-list", "--count", "main"); got != "3" {
		t.Errorf("source main commits = %s, want 3", got)
	}
}
