package archive

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// tree creates files (name -> content; a name ending in "/" is a
// directory) under a new temporary directory.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		mustWrite(t, p, content)
	}
	return root
}

func mustWrite(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// create runs Create and returns the zip and its file count.
func create(t *testing.T, root string, paths, exclude []string, untracked bool) ([]byte, int) {
	t.Helper()
	var buf bytes.Buffer
	n, err := Create(context.Background(), &buf, root, paths, exclude, untracked)
	if err != nil {
		t.Fatalf("Create(%q, exclude %q): %v", paths, exclude, err)
	}
	return buf.Bytes(), n
}

// names lists a zip's entry names in archive order.
func names(t *testing.T, b []byte) []string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, f := range zr.File {
		out = append(out, f.Name)
	}
	return out
}

func globTree(t *testing.T) string {
	return tree(t, map[string]string{
		"a.txt": "a", "b.log": "b", "c.txt": "c", ".hidden": "h",
		"ab1": "1", "ab2": "2", "abc": "c", "a*b": "star",
		"dir/x.txt": "x", "dir/sub/y.txt": "y", "dir/sub/z.bin": "z",
		"other/q.txt": "q", "empty/": "",
	})
}

func TestCreateGlobs(t *testing.T) {
	t.Parallel()
	root := globTree(t)
	dirAll := []string{"dir/", "dir/sub/", "dir/sub/y.txt", "dir/sub/z.bin", "dir/x.txt"}
	cases := []struct {
		paths []string
		want  []string
		files int
	}{
		{[]string{"a.txt"}, []string{"a.txt"}, 1},
		{[]string{"./a.txt"}, []string{"a.txt"}, 1},
		{[]string{"dir/sub/../x.txt"}, []string{"dir/x.txt"}, 1},
		{[]string{root + "/a.txt"}, []string{"a.txt"}, 1},
		{[]string{"dir"}, dirAll, 3},
		{[]string{"dir/"}, dirAll, 3},
		{[]string{"empty"}, []string{"empty/"}, 0},
		{[]string{"*.txt"}, []string{"a.txt", "c.txt"}, 2},
		{[]string{"ab?"}, []string{"ab1", "ab2", "abc"}, 3},
		{[]string{"ab[12]"}, []string{"ab1", "ab2"}, 2},
		{[]string{"ab[!1]"}, []string{"ab2", "abc"}, 2},
		{[]string{"ab[^1]"}, []string{"ab2", "abc"}, 2},
		{[]string{"ab[a-z]"}, []string{"abc"}, 1},
		{[]string{`a\*b`}, []string{"a*b"}, 1},
		{[]string{`dir/x\.txt`, `\dir/su\b`}, []string{"dir/sub/", "dir/sub/y.txt", "dir/sub/z.bin", "dir/x.txt"}, 3},
		{[]string{"{a,c}.txt"}, []string{"a.txt", "c.txt"}, 2},
		{[]string{".h*"}, []string{".hidden"}, 1},
		{[]string{"**/*.txt"}, []string{"a.txt", "c.txt", "dir/sub/y.txt", "dir/x.txt", "other/q.txt"}, 5},
		{[]string{"dir/**"}, dirAll, 3},
		{[]string{"dir/**/y.txt"}, []string{"dir/sub/y.txt"}, 1},
		{[]string{"dir/**/*.bin"}, []string{"dir/sub/z.bin"}, 1},
		{[]string{"**/sub"}, []string{"dir/sub/", "dir/sub/y.txt", "dir/sub/z.bin"}, 2},
		{[]string{"*/sub"}, []string{"dir/sub/", "dir/sub/y.txt", "dir/sub/z.bin"}, 2},
		{[]string{"*/*.txt"}, []string{"dir/x.txt", "other/q.txt"}, 2},
		// Overlapping patterns store each entry once.
		{[]string{"dir", "dir/sub", "dir/x.txt", "**/*.txt"}, append(dirAll[:4:4], "dir/x.txt", "a.txt", "c.txt", "other/q.txt"), 6},
		// Nothing matched is not an error: files is 0.
		{[]string{"missing"}, []string{}, 0},
		{[]string{"*.nope", "nope/**"}, []string{}, 0},
		{[]string{"../outside", "/etc/passwd", "", "{..,nope}/*", "{../..,/etc}/passwd"}, []string{}, 0},
		{[]string{"{..,dir}/x.txt"}, []string{"dir/x.txt"}, 1},
		{[]string{"[unclosed"}, []string{}, 0},
	}
	for _, tc := range cases {
		b, n := create(t, root, tc.paths, nil, false)
		got := names(t, b)
		want := append([]string{}, tc.want...)
		sort.Strings(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("paths %q: entries %q, want %q", tc.paths, got, want)
		}
		if n != tc.files {
			t.Errorf("paths %q: files = %d, want %d", tc.paths, n, tc.files)
		}
	}
}

func TestCreateAll(t *testing.T) {
	t.Parallel()
	root := tree(t, map[string]string{"a": "a", "d/b": "b"})
	for _, p := range []string{".", "**", "*"} {
		b, n := create(t, root, []string{p}, nil, false)
		if got := names(t, b); !reflect.DeepEqual(got, []string{"a", "d/", "d/b"}) || n != 2 {
			t.Errorf("%q: %q (%d files)", p, got, n)
		}
	}
}

func TestCreateExclude(t *testing.T) {
	t.Parallel()
	root := globTree(t)
	cases := []struct {
		paths, exclude, want []string
	}{
		{[]string{"dir"}, []string{"**/*.bin"}, []string{"dir/", "dir/sub/", "dir/sub/y.txt", "dir/x.txt"}},
		{[]string{"dir"}, []string{"dir/x.txt", "dir/sub/*.txt"}, []string{"dir/", "dir/sub/", "dir/sub/z.bin"}},
		{[]string{"dir"}, []string{"dir/sub/**"}, []string{"dir/", "dir/x.txt"}},
		{[]string{"**/*.txt"}, []string{"*.txt"}, []string{"dir/sub/y.txt", "dir/x.txt", "other/q.txt"}},
		{[]string{"*"}, []string{"{dir,other,empty}/**", "ab?", "a\\*b"}, []string{".hidden", "a.txt", "b.log", "c.txt"}},
		// gitlab-runner matches every path on its own: excluding a
		// directory's entry keeps its children.
		{[]string{"dir"}, []string{"dir/sub"}, []string{"dir/", "dir/sub/y.txt", "dir/sub/z.bin", "dir/x.txt"}},
	}
	for _, tc := range cases {
		b, _ := create(t, root, tc.paths, tc.exclude, false)
		if got := names(t, b); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("paths %q exclude %q: %q, want %q", tc.paths, tc.exclude, got, tc.want)
		}
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestCreateUntracked(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := tree(t, map[string]string{
		"tracked.txt": "t", ".gitignore": "*.ignored\n", "src/tracked.go": "package x",
	})
	git(t, root, "init", "-q")
	git(t, root, "add", ".")
	git(t, root, "commit", "-q", "-m", "init")
	for name, content := range map[string]string{
		"new.txt": "n", "src/new.go": "g", "build/out/bin": "b", "skip.ignored": "i", "build/x.ignored": "i",
		"-n": "dash", "we ird\nname": "w",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Files ignored by .gitignore are untracked too, as in GitLab.
	b, n := create(t, root, nil, []string{"src/**"}, true)
	want := []string{"-n", "build/out/bin", "build/x.ignored", "new.txt", "skip.ignored", "we ird\nname"}
	if got := names(t, b); !reflect.DeepEqual(got, want) || n != 6 {
		t.Errorf("untracked: %q (%d files), want %q", got, n, want)
	}
	// untracked plus paths, minus excludes.
	b, n = create(t, root, []string{"tracked.txt"}, []string{"**/*.ignored"}, true)
	want = []string{"-n", "build/out/bin", "new.txt", "src/new.go", "tracked.txt", "we ird\nname"}
	if got := names(t, b); !reflect.DeepEqual(got, want) || n != 6 {
		t.Errorf("untracked+paths: %q (%d files), want %q", got, n, want)
	}
	// Outside a repository untracked is an error, not a silent empty zip.
	if _, err := Create(context.Background(), io.Discard, t.TempDir(), nil, nil, true); err == nil {
		t.Error("untracked outside a git repository: no error")
	}
}

func TestCreateSymlinks(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	outside := filepath.Join(parent, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(parent, "root")
	for name, content := range map[string]string{"real/f.txt": "f", "top.txt": "t"} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	symlink(t, "real", filepath.Join(root, "in-dir"))                 // inside, to a dir
	symlink(t, "../top.txt", filepath.Join(root, "real/in-file"))     // inside, climbing
	symlink(t, outside, filepath.Join(root, "out-abs"))               // absolute out
	symlink(t, "../outside", filepath.Join(root, "out-rel"))          // relative out
	symlink(t, "../../outside/secret", filepath.Join(root, "real/o")) // climbing out
	symlink(t, "in-dir/../..", filepath.Join(root, "tricky"))         // ".." after a link
	symlink(t, "missing", filepath.Join(root, "dangling"))            // inside, dangling

	b, n := create(t, root, []string{"**"}, nil, false)
	want := []string{"dangling", "in-dir", "real/", "real/f.txt", "real/in-file", "top.txt"}
	if got := names(t, b); !reflect.DeepEqual(got, want) || n != 5 {
		t.Fatalf("entries %q (%d files), want %q", got, n, want)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name != "in-dir" && f.Name != "real/in-file" {
			continue
		}
		if f.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s: mode %v, want a symlink", f.Name, f.Mode())
		}
		rc, _ := f.Open()
		target, _ := io.ReadAll(rc)
		rc.Close()
		if want := map[string]string{"in-dir": "real", "real/in-file": "../top.txt"}[f.Name]; string(target) != want {
			t.Errorf("%s -> %q, want %q", f.Name, target, want)
		}
	}
	// Paths through links out of the tree match nothing; through links
	// inside the tree they are found.
	for _, p := range []string{"out-abs/secret", "out-rel/secret", "out-rel/*", "out-rel", "out-abs/**", "*/secret"} {
		b, n := create(t, root, []string{p}, nil, false)
		if got := names(t, b); len(got) != 0 || n != 0 {
			t.Errorf("%q leaked %q", p, got)
		}
	}
	b, _ = create(t, root, []string{"in-dir/f.txt", "in-dir/*.txt"}, nil, false)
	if got := names(t, b); !reflect.DeepEqual(got, []string{"in-dir/f.txt"}) {
		t.Errorf("through an inside link: %q", got)
	}
	if bytes.Contains(b, []byte("secret")) {
		t.Error("the zip contains the outside file")
	}
}

func TestCreateDeterministic(t *testing.T) {
	t.Parallel()
	root := globTree(t)
	a, _ := create(t, root, []string{"**/*.txt", "dir", "ab?"}, nil, false)
	b, _ := create(t, root, []string{"ab?", "dir", "**/*.txt"}, nil, false)
	if !bytes.Equal(a, b) {
		t.Error("same files, different patterns order: different zips")
	}
	got := names(t, a)
	if !sort.StringsAreSorted(got) {
		t.Errorf("entries not sorted: %q", got)
	}
}

func TestCreateCanceled(t *testing.T) {
	t.Parallel()
	root := globTree(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Create(ctx, io.Discard, root, []string{"**"}, nil, false); err == nil {
		t.Error("canceled context: no error")
	}
	if _, err := Create(context.Background(), io.Discard, filepath.Join(root, "missing"), []string{"**"}, nil, false); err == nil {
		t.Error("missing root: no error")
	}
}

// TestCreateStreams zips a 50 MB file into a counting writer: the bytes
// allocated meanwhile must stay far below the file's size. Allocation
// counters are per process, and the other tests run in parallel, so the
// measure runs alone in a child process (this test binary, re-executed).
func TestCreateStreams(t *testing.T) {
	t.Parallel()
	if os.Getenv("HEARTH_ARCHIVE_STREAM_CHILD") == "1" {
		measureStreaming(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCreateStreams$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "HEARTH_ARCHIVE_STREAM_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "allocated") {
		t.Fatalf("child did not measure:\n%s", out)
	}
	t.Logf("child: %s", bytes.TrimSpace(out))
}

func measureStreaming(t *testing.T) {
	const size = 50 << 20
	root := t.TempDir()
	f, err := os.Create(filepath.Join(root, "big"))
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: 50 MB of zeros without writing them.
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	cw := &countWriter{}
	n, err := Create(context.Background(), cw, root, []string{"big"}, nil, false)
	runtime.ReadMemStats(&after)
	if err != nil || n != 1 {
		t.Fatalf("Create: %d, %v", n, err)
	}
	// TotalAlloc counts every allocation, freed or not.
	grown := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d bytes zipping a %d-byte file into %d bytes", grown, size, cw.n)
	if grown > size/10 {
		t.Errorf("allocated %d bytes zipping a %d-byte file", grown, size)
	}
	if cw.n == 0 {
		t.Error("nothing written")
	}
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

func TestCreateSymlinkLoop(t *testing.T) {
	t.Parallel()
	root := tree(t, map[string]string{"f": "f"})
	symlink(t, "loop2", filepath.Join(root, "loop1"))
	symlink(t, "loop1", filepath.Join(root, "loop2"))
	symlink(t, ".", filepath.Join(root, "self"))
	for _, p := range []string{"loop1/x", "loop1/*", "loop1/**", "self/self/self/f"} {
		b, n := create(t, root, []string{p}, nil, false)
		want := []string{}
		if p == "self/self/self/f" {
			want, n = []string{"self/self/self/f"}, n-1
		}
		if got := names(t, b); !reflect.DeepEqual(got, want) || n != 0 {
			t.Errorf("%q: %q", p, got)
		}
	}
	// "**" does not descend into links, so the self link is no cycle.
	b, n := create(t, root, []string{"**"}, nil, false)
	if got := names(t, b); !reflect.DeepEqual(got, []string{"f", "loop1", "loop2", "self"}) || n != 4 {
		t.Errorf("**: %q (%d files)", got, n)
	}
}
