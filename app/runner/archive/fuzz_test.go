package archive

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzExtract checks the invariant for any input: Extract creates nothing
// outside dest, and every symlink it leaves resolves inside dest. Its seeds
// (the malicious archives of the other tests) run with go test.
func FuzzExtract(f *testing.F) {
	seeds := [][]ent{
		{file("../evil", "x")},
		{file("/tmp/hearth-archive-evil", "x")},
		{file(`..\evil`, "x")},
		{link("l", ".."), file("l/evil", "x")},
		{link("l", "/tmp"), file("l/hearth-archive-evil", "x")},
		{link("l2", "."), link("l1", "l2/.."), file("l1/evil", "x")},
		{link("a/b/l", "../../x"), file("a/b/f", "ok")},
		{{name: "d/", mode: fs.ModeDir | 0o755}, file("d/f", "ok"), link("d/l", "f")},
		{{name: "bomb", content: strings.Repeat("A", 4096), declared: 10}},
	}
	for _, s := range seeds {
		f.Add(buildZip(f, s...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		parent := t.TempDir()
		dest := filepath.Join(parent, "dest")
		_ = Extract(bytes.NewReader(data), int64(len(data)), dest)
		ents, err := os.ReadDir(parent)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.Name() != "dest" {
				t.Errorf("created outside dest: %s", e.Name())
			}
		}
		if _, err := os.Lstat("/tmp/hearth-archive-evil"); err == nil {
			t.Error("/tmp/hearth-archive-evil written")
		}
		realDest, err := filepath.EvalSymlinks(dest)
		if err != nil {
			return // nothing extracted
		}
		_ = filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			if r, err := filepath.EvalSymlinks(p); err == nil && r != realDest && !strings.HasPrefix(r, realDest+string(filepath.Separator)) {
				t.Errorf("symlink %s resolves outside dest: %s", p, r)
			}
			return nil
		})
	})
}
