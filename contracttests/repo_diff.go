package contracttests

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// diffOf is what git diff-tree says about a → z (commits or trees), in the
// port's shape and order. Each file's text comes from its own diff-tree
// run limited to its paths.
func (g repoGit) diffOf(path, a, z string) []domain.FileDiff {
	g.t.Helper()
	opts := []string{"-r", "-M", "--no-ext-diff", "--no-textconv", "--no-color"}
	raw := strings.Split(g.bareRaw(path, append(append([]string{"diff-tree", "--raw", "-z"}, opts...), a, z, "--")...), "\x00")
	var diffs []domain.FileDiff
	for i := 0; i+1 < len(raw); {
		meta := strings.Fields(strings.TrimPrefix(raw[i], ":"))
		d := domain.FileDiff{AMode: meta[0], BMode: meta[1], OldPath: raw[i+1], NewPath: raw[i+1]}
		i += 2
		switch meta[4][0] {
		case 'R':
			d.NewPath = raw[i]
			d.RenamedFile = true
			i++
		case 'A':
			d.NewFile, d.AMode = true, "0"
		case 'D':
			d.DeletedFile, d.BMode = true, "0"
		}
		paths := []string{d.OldPath}
		if d.NewPath != d.OldPath {
			paths = append(paths, d.NewPath)
		}
		num := strings.Fields(g.bare(path, append(append(append([]string{"diff-tree", "--numstat"}, opts...), a, z, "--"), paths...)...))
		if num[0] == "-" {
			d.Binary = true
		} else {
			d.Additions, _ = strconv.Atoi(num[0])
			d.Deletions, _ = strconv.Atoi(num[1])
		}
		patch := g.bareRaw(path, append(append(append([]string{"diff-tree", "-p"}, opts...), a, z, "--"), paths...)...)
		if at := strings.Index(patch, "\n@@"); at >= 0 {
			d.Diff = patch[at+1:]
		} else if at := strings.Index(patch, "\nBinary files "); at >= 0 {
			d.Diff, d.Binary = patch[at+1:], true
		}
		diffs = append(diffs, d)
	}
	key := func(d domain.FileDiff) string {
		if d.DeletedFile {
			return d.OldPath
		}
		return d.NewPath
	}
	sort.SliceStable(diffs, func(i, j int) bool { return key(diffs[i]) < key(diffs[j]) })
	return diffs
}

const repoEmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

func repoDiff(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	h := repoRich(t, r, g)
	for _, tc := range [][2]string{
		{"", "c1"}, {"", "c2"}, {"", "c3"}, {"", "t1"}, {"", "t2"}, {"", "m4"}, {"", "c5"}, {"", "f1"},
		{"c1", "c5"}, {"c5", "c1"}, {"feature", "main"}, {"main", "feature"}, {"c3", "c3"},
		{"v1.0", "light"}, {"", "v2.0"}, {"refs/heads/topic", "refs/heads/a/b"},
	} {
		from, to := tc[0], tc[1]
		if sha, ok := h.c[from]; ok {
			from = sha
		}
		if sha, ok := h.c[to]; ok {
			to = sha
		}
		a := repoEmptyTree
		if from != "" {
			a = h.sha(g, from)
		} else if c := g.commitOf(h.path, h.sha(g, to)); len(c.ParentIDs) > 0 {
			a = c.ParentIDs[0]
		}
		want := g.diffOf(h.path, a, h.sha(g, to))
		got, err := r.Backend.Diff(ctx, "projects/1.git", from, to)
		if err != nil {
			t.Errorf("Diff(%s, %s): %v", tc[0], tc[1], err)
			continue
		}
		if len(want) == 0 && len(got) == 0 {
			continue
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("Diff(%s, %s) (-git +backend):\n%s", tc[0], tc[1], d)
		}
	}

	// Spelled out: what each kind of change looks like.
	byPath := func(from, to string) map[string]domain.FileDiff {
		t.Helper()
		diffs, err := r.Backend.Diff(ctx, "projects/1.git", from, to)
		if err != nil {
			t.Fatalf("Diff(%s, %s): %v", from, to, err)
		}
		m := map[string]domain.FileDiff{}
		for _, d := range diffs {
			m[d.NewPath] = d
		}
		return m
	}
	c2 := byPath("", h.c["c2"])
	if d := c2["docs/manual.md"]; !d.RenamedFile || d.OldPath != "docs/guide.md" || d.Diff != "" || d.NewFile || d.DeletedFile {
		t.Errorf("pure rename = %+v", d)
	}
	if d := c2["script.sh"]; d.AMode != "100644" || d.BMode != "100755" || d.Diff != "" || d.RenamedFile {
		t.Errorf("mode change = %+v", d)
	}
	if d := c2["bin.dat"]; !d.Binary || d.Diff != "Binary files a/bin.dat and b/bin.dat differ\n" || d.Additions != 0 || d.Deletions != 0 {
		t.Errorf("binary change = %+v", d)
	}
	if d := c2["noeol.txt"]; !strings.Contains(d.Diff, "\n\\ No newline at end of file\n") || !strings.HasPrefix(d.Diff, "@@ -1 +1 @@\n") ||
		d.Additions != 1 || d.Deletions != 1 {
		t.Errorf("change without final newline = %+v", d)
	}
	if d := c2["README"]; d.Diff != "@@ -1 +1,2 @@\n hello\n+world\n" || d.Additions != 1 || d.Deletions != 0 || d.AMode != "100644" {
		t.Errorf("modification = %+v", d)
	}
	c3 := byPath("", h.c["c3"])
	if d := c3["src/main.go"]; !d.RenamedFile || d.OldPath != "src/a.go" || d.Additions != 1 || d.Deletions != 1 ||
		!strings.Contains(d.Diff, "-line 5\n+line 5 changed\n") {
		t.Errorf("rename with edit = %+v", d)
	}
	if d := c3["Zed"]; !d.DeletedFile || d.BMode != "0" || d.AMode != "100644" || d.Diff != "@@ -1 +0,0 @@\n-Z\n" || d.Deletions != 1 {
		t.Errorf("deletion = %+v", d)
	}
	c1 := byPath("", h.c["c1"])
	if len(c1) != 10 {
		t.Errorf("root commit diff has %d files, want 10", len(c1))
	}
	if d := c1["README"]; !d.NewFile || d.AMode != "0" || d.BMode != "100644" || d.Diff != "@@ -0,0 +1 @@\n+hello\n" || d.Additions != 1 {
		t.Errorf("root commit file = %+v", d)
	}
	if d := c1["vendor/sub"]; !d.NewFile || d.BMode != "160000" || d.Diff != "@@ -0,0 +1 @@\n+Subproject commit "+repoGitlink+"\n" {
		t.Errorf("submodule addition = %+v", d)
	}

	for _, tc := range [][2]string{{"", "nope"}, {"nope", "main"}, {"", strings.Repeat("a", 40)}} {
		_, err := r.Backend.Diff(ctx, "projects/1.git", tc[0], tc[1])
		repoWantErr(t, fmt.Sprintf("Diff(%q, %q)", tc[0], tc[1]), err, core.ErrNotFound)
	}
	for _, tc := range [][2]string{{"", "-x"}, {"--output=/tmp/x", "main"}, {"", "main..feature"}, {"main", "a\x00b"}, {"", ""}} {
		_, err := r.Backend.Diff(ctx, "projects/1.git", tc[0], tc[1])
		repoWantErr(t, fmt.Sprintf("Diff(%q, %q)", tc[0], tc[1]), err, core.ErrInvalid)
	}
}

// archiveEntry is one entry of an archive: "d" directory, "f" file (with
// its content), "l" symbolic link.
type archiveEntry struct {
	Name    string
	Kind    string
	Content string
}

func readTar(t *testing.T, r io.Reader) []archiveEntry {
	t.Helper()
	tr := tar.NewReader(r)
	var entries []archiveEntry
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("read tar: %v", err)
		}
		switch hdr.Typeflag {
		case tar.TypeXGlobalHeader:
			continue
		case tar.TypeDir:
			entries = append(entries, archiveEntry{Name: strings.TrimSuffix(hdr.Name, "/"), Kind: "d"})
		case tar.TypeSymlink:
			entries = append(entries, archiveEntry{Name: hdr.Name, Kind: "l", Content: hdr.Linkname})
		default:
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			entries = append(entries, archiveEntry{Name: hdr.Name, Kind: "f", Content: string(b)})
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return entries
}

func readZip(t *testing.T, b []byte) []archiveEntry {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("read zip: %v", err)
	}
	var entries []archiveEntry
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			entries = append(entries, archiveEntry{Name: strings.TrimSuffix(f.Name, "/"), Kind: "d"})
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		c, err := io.ReadAll(rc)
		_ = rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, archiveEntry{Name: f.Name, Kind: "f", Content: string(c)})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return entries
}

func repoArchive(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	h := repoRich(t, r, g)
	for _, tc := range []struct{ rev, format, prefix string }{
		{"main", "tar.gz", "proj-main"},
		{"main", "zip", "proj-main"},
		{"main", "tar", "p"},
		{"main", "tar.bz2", "p"},
		{"v1.0", "tar.gz", "proj-v1.0"},
		{"feature", "zip", "proj"},
		{h.c["c1"], "tar.gz", "x/y"},
	} {
		name := fmt.Sprintf("Archive(%s, %s, %s)", tc.rev, tc.format, tc.prefix)
		gitFormat := "tar"
		if tc.format == "zip" {
			gitFormat = "zip"
		}
		wantRaw := g.bareRaw(h.path, "archive", "--format="+gitFormat, "--prefix="+tc.prefix+"/", h.sha(g, tc.rev))
		var want []archiveEntry
		if gitFormat == "zip" {
			want = readZip(t, []byte(wantRaw))
		} else {
			want = readTar(t, strings.NewReader(wantRaw))
		}
		var buf bytes.Buffer
		if err := r.Backend.Archive(ctx, "projects/1.git", tc.rev, tc.format, tc.prefix, &buf); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var got []archiveEntry
		switch tc.format {
		case "zip":
			got = readZip(t, buf.Bytes())
		case "tar":
			got = readTar(t, &buf)
		case "tar.gz":
			zr, err := gzip.NewReader(&buf)
			if err != nil {
				t.Errorf("%s: not gzip: %v", name, err)
				continue
			}
			got = readTar(t, zr)
		case "tar.bz2":
			got = readTar(t, bzip2.NewReader(&buf))
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-git archive +backend):\n%s", name, d)
		}
		if len(got) < 3 {
			t.Errorf("%s has %d entries", name, len(got))
		}
	}
	for _, format := range []string{"rar", "", "tar.xz", "TAR", "../zip", "--format=zip"} {
		err := r.Backend.Archive(ctx, "projects/1.git", "main", format, "p", io.Discard)
		repoWantErr(t, "Archive in format "+quote(format), err, core.ErrInvalid)
	}
	repoWantErr(t, "Archive of an unknown revision",
		r.Backend.Archive(ctx, "projects/1.git", "nope", "zip", "p", io.Discard), core.ErrNotFound)
	for _, rev := range []string{"-x", "--output=/tmp/x", "main..feature"} {
		repoWantErr(t, "Archive of "+quote(rev),
			r.Backend.Archive(ctx, "projects/1.git", rev, "zip", "p", io.Discard), core.ErrInvalid)
	}
	for _, prefix := range []string{"../p", "/abs", "a\x00b", "-p"} {
		repoWantErr(t, "Archive with prefix "+quote(prefix),
			r.Backend.Archive(ctx, "projects/1.git", "main", "tar", prefix, io.Discard), core.ErrInvalid)
	}
}
