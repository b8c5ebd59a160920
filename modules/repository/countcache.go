package repository

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// countCache remembers commit counts (X-Total of the commit list). The
// count of a query starting at a commit SHA never changes, so entries need
// no invalidation; the cache is only bounded. Counting walks the whole
// history (about 90 ms for 20,000 commits), which would otherwise be paid
// by every page of the list.
type countCache struct {
	mu  sync.Mutex
	max int
	m   map[countKey]int
}

type countKey struct {
	repo, sha, path string
	since, until    int64 // Unix nanoseconds, 0 when unset
}

func newCountCache(max int) *countCache {
	return &countCache{max: max, m: make(map[countKey]int)}
}

func unixOrZero(t *time.Time) int64 {
	if t == nil {
		return 0
	}
	return t.UnixNano()
}

// count is CountCommits for q, whose Ref must be a full commit SHA.
func (c *countCache) count(ctx context.Context, repos ports.RepoReader, repo string, q domain.LogQuery) (int, error) {
	if len(q.Exclude) > 0 {
		return repos.CountCommits(ctx, repo, q)
	}
	k := countKey{repo: repo, sha: q.Ref, path: q.Path, since: unixOrZero(q.Since), until: unixOrZero(q.Until)}
	c.mu.Lock()
	n, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return n, nil
	}
	n, err := repos.CountCommits(ctx, repo, q)
	if err != nil {
		return 0, fmt.Errorf("count commits: %w", err)
	}
	c.mu.Lock()
	if len(c.m) >= c.max {
		for old := range c.m { // drop an arbitrary entry
			delete(c.m, old)
			break
		}
	}
	c.m[k] = n
	c.mu.Unlock()
	return n, nil
}
