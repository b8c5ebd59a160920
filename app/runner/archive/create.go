// Package archive zips and unzips job artifacts and caches for the built-in
// runner the way gitlab-runner does: GitLab-style path globs relative to the
// build directory, symlinks stored as symlinks and never followed out of the
// tree, and an extractor that writes nothing outside its destination whatever
// the archive says.
package archive

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

type kind int

const (
	kindFile kind = iota + 1
	kindDir
	kindLink
)

// collector gathers the entries of an archive before any byte is written,
// so that the order is deterministic (sorted by name) and an entry matched
// by several patterns is stored once.
type collector struct {
	ctx     context.Context
	root    *os.Root
	fsys    fs.FS
	exclude matcher
	entries map[string]kind
	walked  map[string]bool // directories added with their whole subtree
	buf     []byte          // copy buffer shared by all files
}

// Create writes to w a zip of the files under root that match the
// GitLab-style paths (plain paths, directories recursively, globs with
// doublestar "**"), minus those matching exclude, plus the files git reports
// as untracked when untracked is true (ignored ones included, as in GitLab;
// an error outside a git work tree). Symlinks are stored as symlink entries
// when they stay inside root (relative and not climbing above it), skipped
// otherwise, and never followed; intermediate directories of a path may be
// symlinks resolving inside root. A path that matches nothing, or points
// outside root, is not an error, like in gitlab-runner: files (regular
// files and symlinks, not directories) is 0 then and the caller may skip the
// upload. Entries are sorted by name; contents are streamed from disk to w.
func Create(ctx context.Context, w io.Writer, root string, paths, exclude []string, untracked bool) (files int, err error) {
	if root, err = filepath.Abs(root); err != nil {
		return 0, fmt.Errorf("archive: root: %w", err)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return 0, fmt.Errorf("archive: open root: %w", err)
	}
	defer r.Close()
	ex, err := newMatcher(root, exclude)
	if err != nil {
		return 0, err
	}
	c := &collector{
		ctx:     ctx,
		root:    r,
		fsys:    r.FS(),
		exclude: ex,
		entries: map[string]kind{},
		walked:  map[string]bool{},
	}
	patterns, err := compile(root, paths)
	if err != nil {
		return 0, err
	}
	for _, p := range patterns {
		if err := c.glob(".", p); err != nil {
			return 0, err
		}
	}
	if untracked {
		if err := c.untracked(root); err != nil {
			return 0, err
		}
	}
	return c.write(w)
}

// glob finds the matches of the pattern components below dir (a directory
// relative to root, "." for root itself) and adds them.
func (c *collector) glob(dir string, comps []string) error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	if len(comps) == 0 {
		return c.addMatch(dir)
	}
	comp, rest := comps[0], comps[1:]
	if comp == "**" {
		if err := c.glob(dir, rest); err != nil {
			return err
		}
		if len(rest) == 0 {
			return nil // dir was added with its whole subtree
		}
		ents, err := c.readDir(dir)
		if err != nil {
			return err
		}
		for _, e := range ents {
			// "**" never descends through symlinks: no cycles, and a link
			// is stored as a link.
			if e.IsDir() {
				if err := c.glob(path.Join(dir, e.Name()), comps); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if !hasMeta(comp) {
		next := path.Join(dir, unescape(comp))
		if len(rest) == 0 {
			return c.addMatch(next)
		}
		if c.isDir(next) {
			return c.glob(next, rest)
		}
		return nil
	}
	ents, err := c.readDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !matchComponent(comp, e.Name()) {
			continue
		}
		next := path.Join(dir, e.Name())
		if len(rest) == 0 {
			if err := c.addMatch(next); err != nil {
				return err
			}
		} else if c.isDir(next) {
			if err := c.glob(next, rest); err != nil {
				return err
			}
		}
	}
	return nil
}

// readDir lists a directory; one that vanished or is not a directory has no
// entries.
func (c *collector) readDir(dir string) ([]fs.DirEntry, error) {
	ents, err := fs.ReadDir(c.fsys, dir)
	if err != nil {
		if ignorable(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("archive: read %s: %w", dir, err)
	}
	return ents, nil
}

// isDir follows symlinks, but only inside root (os.Root refuses the rest).
func (c *collector) isDir(rel string) bool {
	fi, err := c.root.Stat(rel)
	return err == nil && fi.IsDir()
}

// ignorable errors mean "no such path inside root": missing, not a
// directory, a symlink loop, or a symlink escaping root (os.Root's error
// for it is not exported).
func ignorable(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) ||
		errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ELOOP) ||
		strings.Contains(err.Error(), "path escapes from parent")
}

// addMatch adds a matched path: a directory with everything under it
// (without following symlinks), a file or a symlink by itself.
func (c *collector) addMatch(rel string) error {
	if rel == "." {
		return c.walk(".")
	}
	fi, err := c.root.Lstat(rel)
	if err != nil {
		if ignorable(err) {
			return nil
		}
		return fmt.Errorf("archive: stat %s: %w", rel, err)
	}
	if fi.IsDir() {
		return c.walk(rel)
	}
	return c.add(rel, fi.Mode().Type())
}

// walk adds a directory and its subtree once, even when several patterns
// match it or its subdirectories.
func (c *collector) walk(dir string) error {
	for d := dir; ; d = path.Dir(d) {
		if c.walked[d] {
			return nil
		}
		if d == "." || d == "/" {
			break
		}
	}
	c.walked[dir] = true
	err := fs.WalkDir(c.fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if ignorable(err) {
				return nil
			}
			return err
		}
		if err := c.ctx.Err(); err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		return c.add(p, d.Type())
	})
	if err != nil {
		return fmt.Errorf("archive: walk %s: %w", dir, err)
	}
	return nil
}

// add records one entry unless excluded. Like gitlab-runner, an excluded
// directory only drops its own entry: its children are matched one by one.
func (c *collector) add(rel string, mode fs.FileMode) error {
	if c.exclude.match(rel) {
		return nil
	}
	switch {
	case mode.IsDir():
		c.entries[rel] = kindDir
	case mode.IsRegular():
		c.entries[rel] = kindFile
	case mode&fs.ModeSymlink != 0:
		target, err := c.root.Readlink(rel)
		if err != nil {
			if ignorable(err) {
				return nil
			}
			return fmt.Errorf("archive: readlink %s: %w", rel, err)
		}
		// A link out of the tree would be refused by Extract anyway.
		if safeLinkTarget(rel, target) {
			c.entries[rel] = kindLink
		}
	}
	// Sockets, pipes and devices are not archived.
	return nil
}

// untracked adds the files git does not track, as `artifacts:untracked`
// and `cache:untracked` do. Like gitlab-runner (`git ls-files -o -z`, see
// gitlab-runner#3378 and GitLab's docs) this includes the files .gitignore
// ignores: caching an ignored node_modules or vendor directory is the
// common use. The command line is fixed: no user input reaches git.
func (c *collector) untracked(root string) error {
	cmd := exec.CommandContext(c.ctx, "git", "ls-files", "--others", "-z")
	cmd.Dir = root
	// GIT_DIR, GIT_WORK_TREE or GIT_INDEX_FILE inherited by the runner (from
	// a hook, say) would make git describe another repository.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("archive: git ls-files --others: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	for _, name := range strings.Split(string(out), "\x00") {
		if name == "" {
			continue
		}
		rel, ok := normalizePattern(root, name)
		if !ok || rel == "." {
			continue
		}
		if err := c.addMatch(rel); err != nil {
			return err
		}
	}
	return nil
}

// write streams the collected entries into a zip on w in name order.
func (c *collector) write(w io.Writer) (int, error) {
	names := make([]string, 0, len(c.entries))
	for n := range c.entries {
		names = append(names, n)
	}
	sort.Strings(names)
	zw := zip.NewWriter(w)
	// zip.Writer allocates a new flate compressor (about 1 MB) per entry;
	// entries are written one after the other, so one is reused.
	var comp *flate.Writer
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		if comp == nil {
			var err error
			comp, err = flate.NewWriter(out, flate.DefaultCompression)
			return comp, err
		}
		comp.Reset(out)
		return comp, nil
	})
	files := 0
	for _, n := range names {
		if err := c.ctx.Err(); err != nil {
			return 0, err
		}
		added, err := c.writeEntry(zw, n, c.entries[n])
		if err != nil {
			return 0, err
		}
		if added {
			files++
		}
	}
	if err := zw.Close(); err != nil {
		return 0, fmt.Errorf("archive: finish zip: %w", err)
	}
	return files, nil
}

// writeEntry writes one entry; it reports whether a file or a symlink was
// stored (a file removed meanwhile is skipped).
func (c *collector) writeEntry(zw *zip.Writer, name string, k kind) (bool, error) {
	switch k {
	case kindDir:
		fi, err := c.root.Lstat(name)
		if err != nil || !fi.IsDir() {
			return false, nil
		}
		h, err := zip.FileInfoHeader(fi)
		if err != nil {
			return false, fmt.Errorf("archive: header %s: %w", name, err)
		}
		h.Name = name + "/"
		h.Method = zip.Store
		if _, err := zw.CreateHeader(h); err != nil {
			return false, fmt.Errorf("archive: write %s: %w", name, err)
		}
		return false, nil
	case kindLink:
		fi, err := c.root.Lstat(name)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return false, nil
		}
		target, err := c.root.Readlink(name)
		if err != nil || !safeLinkTarget(name, target) {
			return false, nil
		}
		h, err := zip.FileInfoHeader(fi)
		if err != nil {
			return false, fmt.Errorf("archive: header %s: %w", name, err)
		}
		h.Name = name
		h.Method = zip.Store
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return false, fmt.Errorf("archive: write %s: %w", name, err)
		}
		if _, err := io.WriteString(fw, target); err != nil {
			return false, fmt.Errorf("archive: write %s: %w", name, err)
		}
		return true, nil
	default:
		return c.writeFile(zw, name)
	}
}

func (c *collector) writeFile(zw *zip.Writer, name string) (bool, error) {
	lfi, err := c.root.Lstat(name)
	if err != nil || !lfi.Mode().IsRegular() {
		return false, nil
	}
	f, err := c.root.Open(name)
	if err != nil {
		if ignorable(err) {
			return false, nil
		}
		return false, fmt.Errorf("archive: open %s: %w", name, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("archive: stat %s: %w", name, err)
	}
	// Swapped for a symlink between Lstat and Open: skip it rather than
	// store what the link points at.
	if !fi.Mode().IsRegular() || !os.SameFile(fi, lfi) {
		return false, nil
	}
	h, err := zip.FileInfoHeader(fi)
	if err != nil {
		return false, fmt.Errorf("archive: header %s: %w", name, err)
	}
	h.Name = name
	h.Method = zip.Deflate
	fw, err := zw.CreateHeader(h)
	if err != nil {
		return false, fmt.Errorf("archive: write %s: %w", name, err)
	}
	if c.buf == nil {
		c.buf = make([]byte, 32<<10)
	}
	if _, err := io.CopyBuffer(fw, ctxReader{c.ctx, f}, c.buf); err != nil {
		return false, fmt.Errorf("archive: write %s: %w", name, err)
	}
	return true, nil
}

// ctxReader stops a long copy when the job is canceled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (r ctxReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.r.Read(p)
}

// safeLinkTarget reports whether a symlink at linkRel (slash-separated,
// relative to the tree's root) pointing at target stays inside the tree
// whatever the other links are: the target is relative, its ".." components
// all come first (so they climb real directories: Extract never writes
// through a symlink) and they do not climb above the root. Every link being
// checked the same way, a chain of links cannot leave the tree either.
func safeLinkTarget(linkRel, target string) bool {
	if target == "" || strings.ContainsAny(target, "\\\x00") || strings.HasPrefix(target, "/") || isDrive(target) {
		return false
	}
	up, named := 0, false
	for _, p := range strings.Split(target, "/") {
		switch p {
		case "", ".":
		case "..":
			if named {
				return false
			}
			up++
		default:
			named = true
		}
	}
	depth := 0
	if d := path.Dir(linkRel); d != "." {
		depth = strings.Count(d, "/") + 1
	}
	return up <= depth
}

// isDrive reports a Windows drive prefix such as "C:".
func isDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z')
}
