package contracttests

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// repoEpoch is hour 0 of the suite's dated histories.
var repoEpoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// repoWhen is the instant of hour h of the suite's histories.
func repoWhen(h int) time.Time { return repoEpoch.Add(time.Duration(h) * time.Hour) }

// at returns g with author and committer dates set to hour h, written in
// zone offset (seconds east of UTC), so histories have distinct,
// increasing and reproducible dates.
func (g repoGit) at(h, offset int) repoGit {
	when := repoWhen(h).In(time.FixedZone("", offset)).Format(time.RFC3339)
	g.env = append(slices.Clone(g.env), "GIT_AUTHOR_DATE="+when, "GIT_COMMITTER_DATE="+when)
	return g
}

// as returns g with another author (name, email).
func (g repoGit) as(name, email string) repoGit {
	g.env = append(slices.Clone(g.env), "GIT_AUTHOR_NAME="+name, "GIT_AUTHOR_EMAIL="+email)
	return g
}

// repoWork is a work tree whose history the suite pushes into a bare
// repository.
type repoWork struct {
	g   repoGit
	dir string
}

func (g repoGit) work() repoWork {
	g.t.Helper()
	dir := g.t.TempDir()
	g.run(dir, "init", "--quiet", "--template=", "--initial-branch=main")
	return repoWork{g: g, dir: dir}
}

// write sets files (path → content; nil content removes the file).
func (w repoWork) write(files map[string][]byte) {
	w.g.t.Helper()
	for p, content := range files {
		full := filepath.Join(w.dir, filepath.FromSlash(p))
		if content == nil {
			if err := os.Remove(full); err != nil {
				w.g.t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			w.g.t.Fatal(err)
		}
		if err := os.WriteFile(full, content, 0o644); err != nil {
			w.g.t.Fatal(err)
		}
	}
}

// commit stages everything and commits at hour h; it returns the SHA.
func (w repoWork) commit(h int, msg string) string {
	w.g.t.Helper()
	w.g.run(w.dir, "add", "--all", "--", ".", ":(exclude)vendor")
	w.g.at(h, 0).run(w.dir, "commit", "--quiet", "--allow-empty", "-m", msg)
	return w.g.run(w.dir, "rev-parse", "HEAD")
}

func (w repoWork) git(args ...string) string {
	w.g.t.Helper()
	return w.g.run(w.dir, args...)
}

// push pushes every branch and tag (and the extra refspecs) to the bare
// repository at path.
func (w repoWork) push(path string, extra ...string) {
	w.g.t.Helper()
	w.g.run(w.dir, append([]string{"push", "--quiet", path,
		"refs/heads/*:refs/heads/*", "refs/tags/*:refs/tags/*"}, extra...)...)
}

// repoLines is n numbered lines, "line 1\n" ... with word in line k.
func repoLines(n, k int, word string) []byte {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i == k {
			fmt.Fprintf(&b, "line %d %s\n", i, word)
			continue
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return []byte(b.String())
}

// repoBinary is content git treats as binary.
func repoBinary(seed byte) []byte {
	b := make([]byte, 64)
	for i := range b {
		b[i] = byte(i)*7 + seed
	}
	b[3] = 0
	return b
}

// repoGitlink is the commit the fixture's submodule entry names (it does
// not exist in the repository, as with any submodule).
const repoGitlink = "1234567890abcdef1234567890abcdef12345678"

// repoHistory is the suite's read fixture, named commits included.
type repoHistory struct {
	path string            // the bare repository
	c    map[string]string // commit name → SHA
}

// seedRich builds, with the git CLI, a history with merges, renames,
// binary files, a mode change, a file without final newline, a submodule
// entry, nested directories and dated commits (hour = the commit's
// position), and pushes it into the bare repository at path:
//
//	c1 ─ c2 ─ c3 ─ m4 ─ c5          main
//	  \             /
//	   t1 ──── t2 ─┘                topic
//	            c3 ─ f1             feature (also refs/merge-requests/1/head)
//
// Branches Upper (c1) and a/b (c2); tags v1.0 (annotated, c2), v2.0
// (annotated, m4), light (c3) and feature (lightweight, c1: same name as
// the branch).
func (g repoGit) seedRich(path string) repoHistory {
	g.t.Helper()
	w := g.work()
	h := repoHistory{path: path, c: map[string]string{}}
	w.write(map[string][]byte{
		"README":        []byte("hello\n"),
		"docs/guide.md": repoLines(12, 0, ""),
		"src/a.go":      repoLines(10, 0, ""),
		"src/lib/b.go":  []byte("package lib\n"),
		"bin.dat":       repoBinary(1),
		"script.sh":     []byte("echo hi\n"),
		"noeol.txt":     []byte("no newline"),
		"-x":            []byte("dash\n"),
		"Zed":           []byte("Z\n"),
	})
	w.g.run(w.dir, "add", "--all")
	w.git("update-index", "--add", "--cacheinfo", "160000,"+repoGitlink+",vendor/sub")
	// The root commit is written in UTC+2 by another author.
	w.g.as("Ada Lovelace", "ada@example.com").at(1, 2*3600).run(w.dir, "commit", "--quiet", "-m", "c1 root\n\nFirst commit body.")
	h.c["c1"] = w.git("rev-parse", "HEAD")

	w.git("mv", "docs/guide.md", "docs/manual.md")
	if err := os.Chmod(filepath.Join(w.dir, "script.sh"), 0o755); err != nil {
		g.t.Fatal(err)
	}
	w.write(map[string][]byte{
		"README":    []byte("hello\nworld\n"),
		"bin.dat":   repoBinary(2),
		"noeol.txt": []byte("no newline, still"),
	})
	h.c["c2"] = w.commit(2, "c2 edits")

	w.git("checkout", "--quiet", "-b", "topic", h.c["c1"])
	w.write(map[string][]byte{"topic.txt": []byte("topic\n")})
	h.c["t1"] = w.commit(3, "t1 topic file")

	w.git("checkout", "--quiet", "main")
	w.git("mv", "src/a.go", "src/main.go")
	w.write(map[string][]byte{"src/main.go": repoLines(10, 5, "changed"), "Zed": nil})
	h.c["c3"] = w.commit(4, "c3 rename with edit")

	w.git("checkout", "--quiet", "topic")
	w.write(map[string][]byte{"src/lib/b.go": []byte("package lib\n\nfunc B() {}\n")})
	h.c["t2"] = w.commit(5, "t2 lib")

	w.git("checkout", "--quiet", "main")
	w.g.at(6, 0).run(w.dir, "merge", "--quiet", "--no-ff", "-m", "m4 merge topic", "topic")
	h.c["m4"] = w.git("rev-parse", "HEAD")

	w.write(map[string][]byte{"README": []byte("hello\nworld\nagain\n")})
	h.c["c5"] = w.commit(7, "c5 readme")

	w.git("checkout", "--quiet", "-b", "feature", h.c["c3"])
	w.write(map[string][]byte{"feature.txt": []byte("f1\n")})
	h.c["f1"] = w.commit(8, "f1 feature")

	w.git("branch", "Upper", h.c["c1"])
	w.git("branch", "a/b", h.c["c2"])
	w.g.at(9, -5*3600).run(w.dir, "tag", "-a", "-m", "Release 1.0\n\nNotes here.", "v1.0", h.c["c2"])
	w.g.at(10, 0).run(w.dir, "tag", "-a", "-m", "v2.0", "v2.0", h.c["m4"])
	w.git("tag", "light", h.c["c3"])
	w.git("tag", "feature", h.c["c1"])
	w.push(path, "refs/heads/feature:refs/merge-requests/1/head")
	return h
}

// sha resolves rev to a commit with git, a branch winning over a tag of
// the same name (git itself prefers the tag).
func (h repoHistory) sha(g repoGit, rev string) string {
	g.t.Helper()
	if sha, ok := h.c[rev]; ok {
		return sha
	}
	for _, ref := range []string{"refs/heads/" + rev, "refs/tags/" + rev} {
		if sha, err := g.try(h.path, "--git-dir="+h.path, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}"); err == nil {
			return sha
		}
	}
	return g.bare(h.path, "rev-parse", "--verify", "--end-of-options", rev+"^{commit}")
}

// repoRich creates projects/1.git with the backend and seeds it.
func repoRich(t *testing.T, r Repo, g repoGit) repoHistory {
	t.Helper()
	repoCreate(t, r, "projects/1.git", "main")
	return g.seedRich(repoPath(r, "projects/1.git"))
}

// commitOf reads commit sha with git cat-file, as the suite expects a
// backend to return it.
func (g repoGit) commitOf(path, sha string) domain.Commit {
	g.t.Helper()
	raw := g.bareRaw(path, "cat-file", "commit", sha)
	head, msg, _ := strings.Cut(raw, "\n\n")
	c := domain.Commit{ID: sha, ParentIDs: []string{}, Message: msg}
	for _, line := range strings.Split(head, "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "tree":
			c.TreeID = v
		case "parent":
			c.ParentIDs = append(c.ParentIDs, v)
		case "author":
			c.Author = g.signature(v)
		case "committer":
			c.Committer = g.signature(v)
		}
	}
	return c
}

// signature parses "Name <email> 1700000000 +0200".
func (g repoGit) signature(v string) domain.Signature {
	g.t.Helper()
	lt := strings.LastIndex(v, " <")
	gt := strings.LastIndex(v, "> ")
	if lt < 0 || gt < lt {
		g.t.Fatalf("bad signature %q", v)
	}
	fields := strings.Fields(v[gt+2:])
	secs, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil {
		g.t.Fatalf("bad signature date %q", v)
	}
	return domain.Signature{Name: v[:lt], Email: v[lt+2 : gt], When: time.Unix(secs, 0).UTC()}
}

// bareRaw is bare without trimming the output.
func (g repoGit) bareRaw(path string, args ...string) string {
	g.t.Helper()
	out, err := g.tryRaw(path, append([]string{"--git-dir=" + path}, args...)...)
	if err != nil {
		g.t.Fatal(err)
	}
	return out
}

// sameSig reports whether two signatures are equal, dates as instants.
func sameSig(a, b domain.Signature) bool {
	return a.Name == b.Name && a.Email == b.Email && a.When.Equal(b.When)
}

// sameCommit reports the differences between got and want ("" = none).
func sameCommit(got, want domain.Commit) string {
	var d []string
	if got.ID != want.ID {
		d = append(d, fmt.Sprintf("ID %s, want %s", got.ID, want.ID))
	}
	if got.TreeID != want.TreeID {
		d = append(d, fmt.Sprintf("TreeID %s, want %s", got.TreeID, want.TreeID))
	}
	if got.ParentIDs == nil || !slices.Equal(got.ParentIDs, want.ParentIDs) {
		d = append(d, fmt.Sprintf("ParentIDs %#v, want %#v", got.ParentIDs, want.ParentIDs))
	}
	if !sameSig(got.Author, want.Author) {
		d = append(d, fmt.Sprintf("Author %+v, want %+v", got.Author, want.Author))
	}
	if !sameSig(got.Committer, want.Committer) {
		d = append(d, fmt.Sprintf("Committer %+v, want %+v", got.Committer, want.Committer))
	}
	if got.Message != want.Message {
		d = append(d, fmt.Sprintf("Message %q, want %q", got.Message, want.Message))
	}
	return strings.Join(d, "; ")
}
