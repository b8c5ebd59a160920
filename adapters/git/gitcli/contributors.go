package gitcli

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core/domain"
)

// Contributors groups the newest limit non-merge commits reachable from rev
// by author, in one rev-list whose output is tallied as it streams.
func (b *Backend) Contributors(ctx context.Context, repo, rev string, limit int) ([]domain.Contributor, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return nil, err
	}
	ids, err := b.resolveCommits(ctx, gitDir, rev)
	if err != nil {
		return nil, fmt.Errorf("gitcli: contributors of %s: %w", repo, err)
	}
	// --header prints each commit raw, NUL-terminated, so the author line
	// is parsed by the same code as every other read (and gogit's);
	// --encoding=none keeps its bytes as stored.
	args := []string{"rev-list", "--no-merges", "--header", "--encoding=none"}
	if limit > 0 {
		args = append(args, "--max-count="+strconv.Itoa(limit))
	}
	args = append(args, "--end-of-options", ids[0], "--")
	t := &authorTally{}
	if _, err := b.runInOpts(ctx, gitDir, runOpts{stdout: t}, args...); err != nil {
		return nil, fmt.Errorf("gitcli: contributors of %s: %w", repo, err)
	}
	if err := t.finish(); err != nil {
		return nil, fmt.Errorf("gitcli: contributors of %s: %w", repo, err)
	}
	return t.tally.List(), nil
}

// authorTally is the io.Writer rev-list --header streams into: it keeps
// only the unfinished record and the tally.
type authorTally struct {
	tally   domain.ContributorTally
	pending []byte
	err     error
}

func (t *authorTally) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n := len(p)
	for {
		i := bytes.IndexByte(p, 0)
		if i < 0 {
			t.pending = append(t.pending, p...)
			return n, nil
		}
		rec := p[:i]
		if len(t.pending) > 0 {
			rec = append(t.pending, rec...)
		}
		if t.err = t.record(rec); t.err != nil {
			return 0, t.err
		}
		t.pending = t.pending[:0]
		p = p[i+1:]
	}
}

// record counts one "<sha>\n<raw commit>" record by its author, parsed
// as every other read (and gogit) parses commits (rev-list indents the
// message, which is not read).
func (t *authorTally) record(rec []byte) error {
	sha, body, ok := bytes.Cut(rec, []byte("\n"))
	if !ok {
		return fmt.Errorf("rev-list record without a commit: %q", rec)
	}
	c, err := gitobject.ParseCommit(string(sha), body)
	if err != nil {
		return err
	}
	t.tally.Add(c.Author.Name, c.Author.Email)
	return nil
}

// finish reports output that did not end a record.
func (t *authorTally) finish() error {
	if len(bytes.TrimSpace(t.pending)) > 0 {
		return fmt.Errorf("rev-list output ends inside a record: %q", t.pending)
	}
	return nil
}
