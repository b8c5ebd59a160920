package gitcli

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core/domain"
)

// diffOpts make diff-tree independent of any configuration: rename
// detection at 50%, no external diff or textconv, no colour, full paths.
var diffOpts = []string{"-r", "-M", "--no-ext-diff", "--no-textconv", "--no-color", "--full-index"}

// diffEnds resolves the two sides of a diff to tree-ish object names:
// from "" is to's first parent, or the empty tree for a root commit.
func (b *Backend) diffEnds(ctx context.Context, gitDir, from, to string) (string, string, error) {
	if err := check.Diff(from, to); err != nil {
		return "", "", err
	}
	var a, z string
	err := b.withCatFile(ctx, gitDir, func(c *catFile) error {
		tc, err := b.resolveCommit(c, gitDir, to)
		if err != nil {
			return err
		}
		z = tc.ID
		switch {
		case from != "":
			fc, err := b.resolveCommit(c, gitDir, from)
			if err != nil {
				return err
			}
			a = fc.ID
		case len(tc.ParentIDs) > 0:
			a = tc.ParentIDs[0]
		default:
			a = gitobject.EmptyTree
		}
		return nil
	})
	return a, z, err
}

// rawDiff is one record of diff-tree --raw --numstat.
type rawDiff struct {
	d          domain.FileDiff
	binary     bool
	sortKey    string
	patchIndex int
}

// diffRecords runs diff-tree --raw --numstat -z and pairs the records.
func (b *Backend) diffRecords(ctx context.Context, gitDir, a, z string) ([]rawDiff, error) {
	args := append([]string{"diff-tree", "--raw", "--numstat", "-z"}, diffOpts...)
	out, err := b.runIn(ctx, gitDir, append(args, a, z, "--")...)
	if err != nil {
		return nil, err
	}
	fields := strings.Split(string(out), "\x00")
	next := func() (string, error) {
		if len(fields) == 0 {
			return "", fmt.Errorf("diff-tree: truncated output")
		}
		f := fields[0]
		fields = fields[1:]
		return f, nil
	}
	var recs []rawDiff
	for len(fields) > 0 && strings.HasPrefix(fields[0], ":") {
		meta, _ := next()
		m := strings.Fields(meta[1:])
		if len(m) != 5 {
			return nil, fmt.Errorf("diff-tree: bad raw record %q", meta)
		}
		var d domain.FileDiff
		d.AMode, d.BMode = printMode(m[0]), printMode(m[1])
		status := m[4]
		p1, err := next()
		if err != nil {
			return nil, err
		}
		d.OldPath, d.NewPath = p1, p1
		switch status[0] {
		case 'R', 'C':
			p2, err := next()
			if err != nil {
				return nil, err
			}
			d.NewPath = p2
			d.RenamedFile = status[0] == 'R'
		case 'A':
			d.NewFile = true
		case 'D':
			d.DeletedFile = true
		}
		key := d.NewPath
		if d.DeletedFile {
			key = d.OldPath
		}
		recs = append(recs, rawDiff{d: d, sortKey: key, patchIndex: len(recs)})
	}
	// numstat: "added\tdeleted\tpath" or, for renames,
	// "added\tdeleted\t" NUL old NUL new.
	for i := range recs {
		f, err := next()
		if err != nil {
			return nil, err
		}
		parts := strings.SplitN(f, "\t", 3)
		if len(parts) != 3 {
			return nil, fmt.Errorf("diff-tree: bad numstat record %q", f)
		}
		if parts[2] == "" {
			if _, err := next(); err != nil {
				return nil, err
			}
			if _, err := next(); err != nil {
				return nil, err
			}
		}
		if parts[0] == "-" {
			recs[i].binary = true
			continue
		}
		recs[i].d.Additions, _ = strconv.Atoi(parts[0])
		recs[i].d.Deletions, _ = strconv.Atoi(parts[1])
	}
	return recs, nil
}

// printMode is a mode as GitLab shows it: "0" for a missing side.
func printMode(m string) string {
	if strings.Trim(m, "0") == "" {
		return "0"
	}
	return m
}

// Diff compares two commits.
func (b *Backend) Diff(ctx context.Context, repo, from, to string) ([]domain.FileDiff, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return nil, err
	}
	a, z, err := b.diffEnds(ctx, gitDir, from, to)
	if err != nil {
		return nil, fmt.Errorf("gitcli: diff of %s: %w", repo, err)
	}
	recs, err := b.diffRecords(ctx, gitDir, a, z)
	if err != nil {
		return nil, fmt.Errorf("gitcli: diff of %s: %w", repo, err)
	}
	if len(recs) > 0 {
		args := append([]string{"diff-tree", "-p"}, diffOpts...)
		args = append(args, a, z, "--")
		out, err := b.runIn(ctx, gitDir, args...)
		if err != nil {
			return nil, fmt.Errorf("gitcli: diff of %s: %w", repo, err)
		}
		sections := splitPatch(out)
		if len(sections) != len(recs) {
			return nil, fmt.Errorf("gitcli: diff of %s: %d patches for %d files", repo, len(sections), len(recs))
		}
		for i := range recs {
			recs[i].d.Diff, recs[i].d.Binary = patchBody(sections[i])
			recs[i].d.Binary = recs[i].d.Binary || recs[i].binary
		}
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].sortKey < recs[j].sortKey })
	diffs := make([]domain.FileDiff, len(recs))
	for i, r := range recs {
		diffs[i] = r.d
	}
	return diffs, nil
}

// splitPatch cuts diff-tree -p output at its "diff --git " headers.
func splitPatch(out []byte) [][]byte {
	var sections [][]byte
	start := -1
	for i := 0; i < len(out); {
		nl := bytes.IndexByte(out[i:], '\n')
		end := len(out)
		if nl >= 0 {
			end = i + nl + 1
		}
		if bytes.HasPrefix(out[i:end], []byte("diff --git ")) {
			if start >= 0 {
				sections = append(sections, out[start:i])
			}
			start = i
		}
		i = end
	}
	if start >= 0 {
		sections = append(sections, out[start:])
	}
	return sections
}

// patchBody returns the part of one file's patch from the first "@@" line,
// or git's "Binary files ... differ" line.
func patchBody(section []byte) (string, bool) {
	for i := 0; i < len(section); {
		nl := bytes.IndexByte(section[i:], '\n')
		end := len(section)
		if nl >= 0 {
			end = i + nl + 1
		}
		line := section[i:end]
		switch {
		case bytes.HasPrefix(line, []byte("@@")):
			return string(section[i:]), false
		case bytes.HasPrefix(line, []byte("Binary files ")):
			return string(section[i:]), true
		}
		i = end
	}
	return "", false
}

// CommitStats counts changed lines of sha against its first parent.
func (b *Backend) CommitStats(ctx context.Context, repo, sha string) (domain.CommitStats, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return domain.CommitStats{}, err
	}
	a, z, err := b.diffEnds(ctx, gitDir, "", sha)
	if err != nil {
		return domain.CommitStats{}, fmt.Errorf("gitcli: stats of %s in %s: %w", sha, repo, err)
	}
	recs, err := b.diffRecords(ctx, gitDir, a, z)
	if err != nil {
		return domain.CommitStats{}, fmt.Errorf("gitcli: stats of %s in %s: %w", sha, repo, err)
	}
	var s domain.CommitStats
	for _, r := range recs {
		s.Additions += r.d.Additions
		s.Deletions += r.d.Deletions
	}
	return s, nil
}

// Archive writes the tree of rev as an archive, every path under prefix/.
func (b *Backend) Archive(ctx context.Context, repo, rev, format, prefix string, w io.Writer) error {
	gitDir, err := b.open(repo)
	if err != nil {
		return err
	}
	if prefix, err = check.Archive(format, prefix); err != nil {
		return err
	}
	gitFormat := "tar" // tar.gz and tar.bz2 are compressed below
	if format == "zip" {
		gitFormat = "zip"
	}
	ids, err := b.resolveCommits(ctx, gitDir, rev)
	if err != nil {
		return fmt.Errorf("gitcli: archive of %s: %w", repo, err)
	}
	args := []string{"archive", "--format=" + gitFormat, "--prefix=" + prefix, ids[0]}
	switch format {
	case "tar.gz":
		bw := bufio.NewWriterSize(w, 64<<10)
		zw, _ := gzip.NewWriterLevel(bw, gzip.DefaultCompression)
		if _, err := b.runInOpts(ctx, gitDir, runOpts{stdout: zw}, args...); err != nil {
			return fmt.Errorf("gitcli: archive of %s: %w", repo, err)
		}
		if err := zw.Close(); err != nil {
			return fmt.Errorf("gitcli: archive of %s: %w", repo, err)
		}
		return bw.Flush()
	case "tar.bz2":
		// Go has no bzip2 writer: git pipes its tar through bzip2.
		args = append([]string{"-c", "tar.tar.bz2.command=bzip2 -c"}, args...)
		args[3] = "--format=tar.bz2"
	}
	if _, err := b.runInOpts(ctx, gitDir, runOpts{stdout: w}, args...); err != nil {
		return fmt.Errorf("gitcli: archive of %s: %w", repo, err)
	}
	return nil
}
