package archive

import (
	"archive/zip"
	"bytes"
	"context"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// ent describes one entry of a zip built by a test.
type ent struct {
	name    string
	mode    fs.FileMode // 0: regular 0644
	content string
	// declared overrides the uncompressed size in the headers (stored raw,
	// with a matching CRC so only the size lies); 0 keeps the real size.
	declared uint64
}

func link(name, target string) ent {
	return ent{name: name, mode: fs.ModeSymlink | 0o777, content: target}
}
func file(name, content string) ent { return ent{name: name, content: content} }

func buildZip(t testing.TB, ents ...ent) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range ents {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		h.SetMode(mode)
		if e.declared != 0 {
			h.Method = zip.Store
			h.CRC32 = crc32.ChecksumIEEE([]byte(e.content))
			h.CompressedSize64 = uint64(len(e.content))
			h.UncompressedSize64 = e.declared
			w, err := zw.CreateRaw(h)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write([]byte(e.content)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// snapshot lists every path under dir with its type, size and target, so
// that any change outside dest shows.
func snapshot(t *testing.T, dir, skip string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == skip {
			return filepath.SkipDir
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		desc := fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			desc += " " + string(b)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			desc += " -> " + target
		}
		out[p] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func extract(b []byte, dest string) error {
	return Extract(bytes.NewReader(b), int64(len(b)), dest)
}

func TestExtractRefusesMalicious(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// ents may use "PARENT" for the test's parent directory.
		ents []ent
		// setup prepares dest before the extraction (existing checkout).
		setup func(t *testing.T, parent, dest string)
		// partial: validation cannot see it (the trap is on disk), so
		// entries before the bad one may be written inside dest.
		partial bool
	}{
		{name: "dotdot", ents: []ent{file("ok", "ok"), file("../evil", "x")}},
		{name: "dotdot deep", ents: []ent{file("a/b/../../../evil", "x")}},
		{name: "dotdot dir", ents: []ent{{name: "../evildir/", mode: fs.ModeDir | 0o755}}},
		{name: "absolute", ents: []ent{file("PARENT/evil", "x")}},
		{name: "absolute root", ents: []ent{file("/tmp/hearth-archive-evil", "x")}},
		{name: "backslash dotdot", ents: []ent{file(`..\evil`, "x")}},
		{name: "backslash deep", ents: []ent{file(`a\..\..\evil`, "x")}},
		{name: "drive", ents: []ent{file(`C:\evil`, "x")}},
		{name: "drive slash", ents: []ent{file("c:/evil", "x")}},
		{name: "NUL", ents: []ent{file("evil\x00.txt", "x")}},
		{name: "symlink out relative", ents: []ent{link("l", "..")}},
		{name: "symlink out deep", ents: []ent{link("a/b/l", "../../../evil")}},
		{name: "symlink out absolute", ents: []ent{link("l", "PARENT")}},
		{name: "symlink then file through it", ents: []ent{link("l", "sub"), file("l/evil", "x")}},
		{name: "symlink out then file through it", ents: []ent{link("l", "PARENT"), file("l/evil", "x")}},
		{name: "symlink dir then file through it", ents: []ent{{name: "d/", mode: fs.ModeDir | 0o755}, link("l", "d"), file("l/../../evil", "x")}},
		{name: "symlink chain up", ents: []ent{link("l2", "."), link("l1", "l2/..")}},
		{name: "symlink chain", ents: []ent{link("l1", "l2"), link("l2", "../x")}},
		{name: "symlink backslash", ents: []ent{link("l", `..\..`)}},
		{name: "symlink too long", ents: []ent{link("l", strings.Repeat("a/", 3000))}},
		{name: "duplicate file then link", ents: []ent{file("x", "1"), link("x", "y")}},
		{name: "duplicate files", ents: []ent{file("x", "1"), file("./x", "2")}},
		{name: "file then file under it", ents: []ent{file("x", "1"), file("x/y", "2")}},
		{name: "actual larger than declared", ents: []ent{{name: "bomb", content: strings.Repeat("A", 1<<16), declared: 10}}},
		{name: "declared larger than actual", ents: []ent{{name: "short", content: "tiny", declared: 1 << 40}}},
		{
			name: "existing symlink out in dest", ents: []ent{file("ok", "ok"), file("ln/evil", "x")},
			setup: func(t *testing.T, parent, dest string) {
				symlink(t, parent, filepath.Join(dest, "ln"))
			},
			partial: true,
		},
		{
			name: "existing symlink out as a deep parent", ents: []ent{{name: "a/ln/b/", mode: fs.ModeDir | 0o755}},
			setup: func(t *testing.T, parent, dest string) {
				symlink(t, parent, filepath.Join(dest, "a", "ln"))
			},
			partial: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			parent := t.TempDir()
			dest := filepath.Join(parent, "dest")
			if err := os.MkdirAll(dest, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(parent, "sentinel"), []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.setup != nil {
				tc.setup(t, parent, dest)
			}
			ents := append([]ent{}, tc.ents...)
			for i := range ents {
				ents[i].name = strings.ReplaceAll(ents[i].name, "PARENT", parent)
				ents[i].content = strings.ReplaceAll(ents[i].content, "PARENT", parent)
			}
			before, beforeDest := snapshot(t, parent, dest), snapshot(t, dest, "")
			err := extract(buildZip(t, ents...), dest)
			if err == nil {
				t.Fatal("extracted without error")
			}
			t.Logf("refused: %v", err)
			if after := snapshot(t, parent, dest); !reflect.DeepEqual(before, after) {
				t.Errorf("outside dest changed:\nbefore %v\nafter  %v", before, after)
			}
			if after := snapshot(t, dest, ""); !tc.partial && !reflect.DeepEqual(beforeDest, after) {
				t.Errorf("refused archive wrote into dest: %v", after)
			}
			if _, err := os.Lstat("/tmp/hearth-archive-evil"); err == nil {
				t.Error("/tmp/hearth-archive-evil written")
			}
		})
	}
}

func TestExtractNotAZip(t *testing.T) {
	t.Parallel()
	dest := filepath.Join(t.TempDir(), "dest")
	if err := extract([]byte("not a zip at all"), dest); err == nil {
		t.Error("garbage extracted")
	}
	if err := extract(nil, dest); err == nil {
		t.Error("empty input extracted")
	}
}

func TestExtractModesAndReplace(t *testing.T) {
	t.Parallel()
	dest := tree(t, map[string]string{"existing": "old", "keep": "keep", "target": "t"})
	symlink(t, "target", filepath.Join(dest, "was-link"))
	b := buildZip(t,
		ent{name: "suid", mode: fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky | 0o4777, content: "s"},
		ent{name: "exec", mode: 0o700, content: "e"},
		ent{name: "plain", mode: 0o600, content: "p"},
		ent{name: "./dot/./x", content: "dot"},
		ent{name: "./", mode: fs.ModeDir | 0o755},
		file("existing", "new"),
		file("was-link", "file now"),
		link("rel", "dot/x"),
		link("deep/up", "../keep"),
		ent{name: "fifo", mode: fs.ModeNamedPipe | 0o644},
		ent{name: "d/", mode: fs.ModeDir | 0o755},
		ent{name: "d/", mode: fs.ModeDir | 0o755},
	)
	if err := extract(b, dest); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]fs.FileMode{"suid": 0o755, "exec": 0o755, "plain": 0o644, "existing": 0o644} {
		fi, err := os.Lstat(filepath.Join(dest, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", name, fi.Mode(), want)
		}
	}
	for name, want := range map[string]string{"existing": "new", "was-link": "file now", "target": "t", "dot/x": "dot", "rel": "dot", "deep/up": "keep"} {
		got, err := os.ReadFile(filepath.Join(dest, name))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
	if fi, err := os.Lstat(filepath.Join(dest, "was-link")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("was-link not replaced by a file: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dest, "fifo")); err == nil {
		t.Error("a named pipe was created")
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	src := tree(t, map[string]string{
		"bin/run.sh": "#!/bin/sh\necho hi\n", "lib/a.txt": "a", "lib/deep/b.txt": strings.Repeat("b", 100000),
		"empty/": "", "unicode/ünï côdé.txt": "u",
	})
	if err := os.Chmod(filepath.Join(src, "bin/run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(src, "lib/a.txt"), mtime, mtime); err != nil {
		t.Fatal(err)
	}
	symlink(t, "../lib/a.txt", filepath.Join(src, "bin/a-link"))
	symlink(t, "lib", filepath.Join(src, "lib-link"))

	b, n := create(t, src, []string{"**"}, nil, false)
	if n != 6 {
		t.Errorf("files = %d, want 6", n)
	}
	dest := filepath.Join(t.TempDir(), "new", "dest")
	if err := extract(b, dest); err != nil {
		t.Fatal(err)
	}
	want, got := snapshot(t, src, ""), snapshot(t, dest, "")
	rel := func(m map[string]string, base string) []string {
		var out []string
		for p, d := range m {
			r, _ := filepath.Rel(base, p)
			out = append(out, r+" "+d)
		}
		sort.Strings(out)
		return out
	}
	if w, g := rel(want, src), rel(got, dest); !reflect.DeepEqual(w, g) {
		t.Errorf("round trip differs:\nsrc  %q\ndest %q", w, g)
	}
	fi, err := os.Stat(filepath.Join(dest, "lib/a.txt"))
	if err != nil || !fi.ModTime().Equal(mtime) {
		t.Errorf("mtime %v, want %v (%v)", fi.ModTime(), mtime, err)
	}
	// Extracting the same archive again over itself works (cache restore
	// over a previous restore).
	if err := extract(b, dest); err != nil {
		t.Errorf("second extraction: %v", err)
	}
}

func TestExtractEmptyArchive(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	b, n := create(t, root, []string{"nothing"}, nil, false)
	if n != 0 {
		t.Fatalf("files = %d", n)
	}
	dest := filepath.Join(t.TempDir(), "dest")
	if err := extract(b, dest); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(context.Background(), &bytes.Buffer{}, dest, []string{"**"}, nil, false); err != nil {
		t.Fatal(err)
	}
}
