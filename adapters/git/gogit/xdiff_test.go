package gogit

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitCLI runs the real git with an isolated environment.
func gitCLI(t *testing.T, dir string, args ...string) ([]byte, int) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "git", args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return out, code
}

func numbered(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s%d\n", prefix, i)
	}
	return b.String()
}

// diffCorpus is a set of (old, new) contents covering git's diff rules.
var diffCorpus = []struct{ name, a, b string }{
	{"insert", "a\nb\nc\n", "a\nb\nx\nc\n"},
	{"delete", numbered("l", 10), strings.Replace(numbered("l", 10), "l5\n", "", 1)},
	{"replace", numbered("l", 10), strings.Replace(numbered("l", 10), "l5\n", "five\n", 1)},
	{"empty to text", "", "one\ntwo\n"},
	{"text to empty", "one\ntwo\n", ""},
	{"no newline at end", "a\nb", "a\nc"},
	{"newline added", "a\nb", "a\nb\n"},
	{"crlf", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n"},
	{"two hunks gap 6", numbered("l", 20), strings.Replace(strings.Replace(numbered("l", 20), "l3\n", "x\n", 1), "l10\n", "y\n", 1)},
	{"two hunks gap 7", numbered("l", 20), strings.Replace(strings.Replace(numbered("l", 20), "l3\n", "x\n", 1), "l11\n", "y\n", 1)},
	{"gap 5", numbered("l", 20), strings.Replace(strings.Replace(numbered("l", 20), "l3\n", "x\n", 1), "l9\n", "y\n", 1)},
	{"move block", numbered("l", 12), "l7\nl8\nl9\n" + strings.Replace(numbered("l", 12), "l7\nl8\nl9\n", "", 1)},
	{"funcname", "package x\n\nfunc a() {\n\tx := 1\n\ty := 2\n\tz := 3\n\tw := 4\n\treturn\n}\n",
		"package x\n\nfunc a() {\n\tx := 1\n\ty := 2\n\tz := 3\n\tw := 5\n\treturn\n}\n"},
	{"indent heuristic", "func a() {\n\tx()\n}\n\nfunc c() {\n\tz()\n}\n",
		"func a() {\n\tx()\n}\n\nfunc b() {\n\ty()\n}\n\nfunc c() {\n\tz()\n}\n"},
	{"repeated lines", "a\nb\na\nb\na\nb\n", "a\nb\na\nc\na\nb\na\nb\n"},
	{"blank lines", "x\n\n\ny\n\n\nz\n", "x\n\n\ny\n\n\nq\n\n\nz\n"},
	{"braces", "if a {\n}\nif b {\n}\n", "if a {\n}\nif n {\n}\nif b {\n}\n"},
}

// TestUnifiedMatchesGit compares every corpus diff with git diff --no-index.
func TestUnifiedMatchesGit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, c := range diffCorpus {
		a, b := filepath.Join(dir, fmt.Sprintf("a%d", i)), filepath.Join(dir, fmt.Sprintf("b%d", i))
		if err := os.WriteFile(a, []byte(c.a), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(b, []byte(c.b), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _ := gitCLI(t, dir, "diff", "--no-index", "--no-color", "-U3", filepath.Base(a), filepath.Base(b))
		want := ""
		if k := bytes.Index(out, []byte("\n@@")); k >= 0 {
			want = string(out[k+1:])
		}
		got, adds, dels := unified([]byte(c.a), []byte(c.b))
		if got != want {
			t.Errorf("%s: diff\n%s\nwant (git)\n%s", c.name, got, want)
		}
		ns, _ := gitCLI(t, dir, "diff", "--no-index", "--numstat", filepath.Base(a), filepath.Base(b))
		var wa, wd int
		fmt.Sscanf(string(ns), "%d\t%d", &wa, &wd)
		if adds != wa || dels != wd {
			t.Errorf("%s: numstat %d %d, git %d %d", c.name, adds, dels, wa, wd)
		}
	}
}

// TestMergeTextMatchesGit compares line merges with git merge-file.
func TestMergeTextMatchesGit(t *testing.T) {
	t.Parallel()
	base := numbered("l", 20)
	cases := []struct{ name, ours, theirs string }{
		{"disjoint", strings.Replace(base, "l2\n", "A\n", 1), strings.Replace(base, "l15\n", "B\n", 1)},
		{"same change", strings.Replace(base, "l5\n", "X\n", 1), strings.Replace(base, "l5\n", "X\n", 1)},
		{"overlap", strings.Replace(base, "l5\n", "X\n", 1), strings.Replace(base, "l5\n", "Y\n", 1)},
		{"adjacent", strings.Replace(base, "l5\n", "X\n", 1), strings.Replace(base, "l6\n", "Y\n", 1)},
		{"one line apart", strings.Replace(base, "l5\n", "X\n", 1), strings.Replace(base, "l7\n", "Y\n", 1)},
		{"insert both ends", "top\n" + base, base + "bottom\n"},
		{"insert same place", strings.Replace(base, "l5\n", "l5\nA\n", 1), strings.Replace(base, "l5\n", "l5\nB\n", 1)},
		{"delete and edit far", strings.Replace(base, "l1\nl2\n", "", 1), strings.Replace(base, "l19\n", "Z\n", 1)},
	}
	dir := t.TempDir()
	for i, c := range cases {
		names := [3]string{}
		for k, content := range []string{c.ours, base, c.theirs} {
			names[k] = fmt.Sprintf("f%d_%d", i, k)
			if err := os.WriteFile(filepath.Join(dir, names[k]), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out, code := gitCLI(t, dir, "merge-file", "-p", names[0], names[1], names[2])
		got, ok := mergeText([]byte(base), []byte(c.ours), []byte(c.theirs))
		if ok != (code == 0) {
			t.Errorf("%s: clean=%v, git merge-file exit %d", c.name, ok, code)
			continue
		}
		if ok && string(got) != string(out) {
			t.Errorf("%s: merged\n%s\nwant (git)\n%s", c.name, got, out)
		}
	}
}
