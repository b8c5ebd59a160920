package gitcli

import (
	"fmt"

	"github.com/hearth-forge/hearth/core/domain"
)

// walkLimit is the deepest page (skip + limit) walked through cat-file;
// deeper pages start rev-list, which reads packs faster than a round trip
// per commit.
const walkLimit = 1000

// walkable tells whether walkLog can answer q: a plain page of history,
// without path, date or exclusion filters.
func walkable(q domain.LogQuery) bool {
	return q.Path == "" && q.Since == nil && q.Until == nil && len(q.Exclude) == 0 &&
		q.Limit > 0 && q.Skip >= 0 && q.Skip+q.Limit <= walkLimit
}

// walkLog lists a page of the commits reachable from head as "git rev-list
// head" orders them (its default walk: the pending commits kept newest
// committer date first, ties in insertion order; parents queued in order
// when first seen), reading only the commits up to the page's end through
// the long-lived cat-file process: the cost follows the page, not the
// history.
func (b *Backend) walkLog(c *catFile, head string, skip, limit int) ([]domain.Commit, error) {
	seen := map[string]bool{head: true}
	first, err := b.readCommit(c, head)
	if err != nil {
		return nil, err
	}
	pending := []domain.Commit{first}
	out := make([]domain.Commit, 0, limit)
	for n := 0; len(pending) > 0 && len(out) < limit; n++ {
		commit := pending[0]
		pending = pending[1:]
		for _, pid := range commit.ParentIDs {
			if seen[pid] {
				continue
			}
			seen[pid] = true
			parent, err := b.readCommit(c, pid)
			if err != nil {
				return nil, fmt.Errorf("parent of %s: %w", commit.ID, err)
			}
			pending = insertByDate(pending, parent)
		}
		if n >= skip {
			out = append(out, commit)
		}
	}
	return out, nil
}

// insertByDate inserts c after every pending commit not older than it
// (git's commit_list_insert_by_date).
func insertByDate(pending []domain.Commit, c domain.Commit) []domain.Commit {
	at := c.Committer.When.Unix()
	i := 0
	for i < len(pending) && pending[i].Committer.When.Unix() >= at {
		i++
	}
	pending = append(pending, domain.Commit{})
	copy(pending[i+1:], pending[i:])
	pending[i] = c
	return pending
}
