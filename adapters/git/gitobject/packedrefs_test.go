package gitobject

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackedRefsCache: lookups answer as the file says, and a packed-refs
// rewritten as git does (a new file renamed over the old, here of the same
// size and modification time) is read again at the next lookup.
func TestPackedRefsCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	oid := func(c byte) string { return strings.Repeat(string(c), 40) }
	write := func(lines ...string) {
		t.Helper()
		tmp := filepath.Join(dir, "packed-refs.lock")
		body := "# pack-refs with: peeled fully-peeled sorted \n" + strings.Join(lines, "\n") + "\n"
		if err := os.WriteFile(tmp, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		old, err := os.Stat(filepath.Join(dir, "packed-refs"))
		if err == nil {
			// Same size and time as the file it replaces: only the inode differs.
			if err := os.Chtimes(tmp, old.ModTime(), old.ModTime()); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Rename(tmp, filepath.Join(dir, "packed-refs")); err != nil {
			t.Fatal(err)
		}
	}
	p := NewPackedRefs()
	lookup := func(ref string) string {
		t.Helper()
		got, ok, err := p.Lookup(dir, ref)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return "missing"
		}
		return got
	}
	if got := lookup("refs/heads/main"); got != "missing" {
		t.Errorf("no packed-refs: %s", got)
	}
	write(oid('a')+" refs/heads/main", oid('b')+" refs/tags/v1", "^"+oid('c'))
	for ref, want := range map[string]string{"refs/heads/main": oid('a'), "refs/tags/v1": oid('b'), "refs/heads/other": "missing"} {
		if got := lookup(ref); got != want {
			t.Errorf("%s: %s, want %s", ref, got, want)
		}
	}
	write(oid('d')+" refs/heads/main", oid('b')+" refs/tags/v1", "^"+oid('c'))
	if got := lookup("refs/heads/main"); got != oid('d') {
		t.Errorf("after a rewrite: %s, want %s", got, oid('d'))
	}
	// The uncached path agrees.
	for _, ref := range []string{"refs/heads/main", "refs/tags/v1", "refs/heads/other"} {
		a, aok, _ := ReadPackedRef(dir, ref)
		b, bok, _ := p.Lookup(dir, ref)
		if a != b || aok != bok {
			t.Errorf("%s: scan %s %v, cache %s %v", ref, a, aok, b, bok)
		}
	}
	if err := os.Remove(filepath.Join(dir, "packed-refs")); err != nil {
		t.Fatal(err)
	}
	if got := lookup("refs/heads/main"); got != "missing" {
		t.Errorf("after removal: %s", got)
	}
}
