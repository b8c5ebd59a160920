package gogit

import (
	"container/heap"
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core/domain"
)

// commitCache parses each commit once per operation.
type commitCache struct {
	r *repoh
	m map[string]*domain.Commit
}

func (c *commitCache) get(id string) (*domain.Commit, error) {
	if c.m == nil {
		c.m = map[string]*domain.Commit{}
	}
	if cm, ok := c.m[id]; ok {
		return cm, nil
	}
	cm, err := gitobject.ReadCommit(c.r, id)
	if err != nil {
		return nil, err
	}
	c.m[id] = &cm
	return &cm, nil
}

// dateQueue is git's prio_queue of commits by committer date, newest
// first, ties in insertion order.
type dateQueue struct {
	items []queued
	ctr   int
}

type queued struct {
	id   string
	date int64
	ctr  int
}

func (q *dateQueue) Len() int { return len(q.items) }
func (q *dateQueue) Less(i, j int) bool {
	if q.items[i].date != q.items[j].date {
		return q.items[i].date > q.items[j].date
	}
	return q.items[i].ctr < q.items[j].ctr
}
func (q *dateQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *dateQueue) Push(x any)    { q.items = append(q.items, x.(queued)) }
func (q *dateQueue) Pop() any {
	it := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return it
}
func (q *dateQueue) put(id string, date int64) {
	q.ctr++
	heap.Push(q, queued{id: id, date: date, ctr: q.ctr})
}
func (q *dateQueue) get() string { return heap.Pop(q).(queued).id }

// walker is git rev-list's default walk: date order, history
// simplification for a path, exclusions, --max-age/--min-age.
type walker struct {
	r     *repoh
	ctx   context.Context
	cache commitCache
	path  string
	since *time.Time
	until *time.Time
	// noMerges leaves merge commits out (still walking through them), as
	// --no-merges does.
	noMerges bool
	// each, when set, receives the listed commits as they are found
	// instead of run returning their IDs; a walk without a path then
	// forgets each commit once its parents are queued, so memory follows
	// the walk's frontier, not the history.
	each func(c *domain.Commit)
}

// uninteresting is every commit reachable from ids.
func (w *walker) reachable(ids []string) (map[string]bool, error) {
	seen := map[string]bool{}
	stack := append([]string(nil), ids...)
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[id] {
			continue
		}
		if err := w.ctx.Err(); err != nil {
			return nil, err
		}
		seen[id] = true
		c, err := w.cache.get(id)
		if err != nil {
			return nil, err
		}
		stack = append(stack, c.ParentIDs...)
	}
	return seen, nil
}

// entryAt is the tree entry at w.path of tree ("" when missing).
func (w *walker) entryAt(tree string) (string, error) {
	if tree == gitobject.EmptyTree {
		return "", nil
	}
	e, ok, err := gitobject.LookupPath(w.r, tree, w.path)
	if err != nil || !ok {
		return "", err
	}
	return e.Mode + " " + e.ID, nil
}

// run lists the commits rev-list would print for include ^exclude,
// skipping skip and stopping after limit (0 = all).
func (w *walker) run(include, exclude []string, skip, limit int) ([]string, error) {
	w.cache.r = w.r
	bad, err := w.reachable(exclude)
	if err != nil {
		return nil, err
	}
	var q dateQueue
	seen := map[string]bool{}
	for _, id := range include {
		if seen[id] {
			continue
		}
		c, err := w.cache.get(id)
		if err != nil {
			return nil, err
		}
		seen[id] = true
		q.put(id, c.Committer.When.Unix())
	}
	var out []string
	shown := 0
	for q.Len() > 0 {
		if err := w.ctx.Err(); err != nil {
			return nil, err
		}
		id := q.get()
		if bad[id] {
			continue
		}
		c, err := w.cache.get(id)
		if err != nil {
			return nil, err
		}
		date := c.Committer.When.Unix()
		if w.since != nil && date < w.since.Unix() {
			continue // git does not walk past a commit older than --max-age
		}
		parents := c.ParentIDs
		treesame := false
		if w.path != "" {
			parents, treesame, err = w.simplify(c, bad)
			if err != nil {
				return nil, err
			}
		}
		for _, p := range parents {
			if seen[p] {
				continue
			}
			seen[p] = true
			pc, err := w.cache.get(p)
			if err != nil {
				return nil, err
			}
			q.put(p, pc.Committer.When.Unix())
		}
		if w.each != nil && w.path == "" {
			delete(w.cache.m, id)
		}
		if treesame || (w.until != nil && date > w.until.Unix()) || (w.noMerges && len(c.ParentIDs) > 1) {
			continue
		}
		shown++
		if shown <= skip {
			continue
		}
		if w.each != nil {
			w.each(c)
		} else {
			out = append(out, id)
		}
		if limit > 0 && shown-skip >= limit {
			break
		}
	}
	return out, nil
}

// simplify is git's try_to_simplify_commit with simplify_history: the
// parents to follow, and whether c is TREESAME (not shown).
func (w *walker) simplify(c *domain.Commit, bad map[string]bool) ([]string, bool, error) {
	mine, err := w.entryAt(c.TreeID)
	if err != nil {
		return nil, false, err
	}
	if len(c.ParentIDs) == 0 {
		return nil, mine == "", nil
	}
	changed := false
	for _, p := range c.ParentIDs {
		pc, err := w.cache.get(p)
		if err != nil {
			return nil, false, err
		}
		theirs, err := w.entryAt(pc.TreeID)
		if err != nil {
			return nil, false, err
		}
		if theirs == mine {
			if bad[p] {
				continue
			}
			return []string{p}, true, nil
		}
		changed = true
	}
	return c.ParentIDs, !changed, nil
}

// logIDs runs the walk of q.
func (b *Backend) logIDs(ctx context.Context, r *repoh, q domain.LogQuery, paged bool) ([]string, *walker, error) {
	p, err := check.Log(q)
	if err != nil {
		return nil, nil, err
	}
	ids, err := r.resolveCommits(append([]string{q.Ref}, q.Exclude...)...)
	if err != nil {
		return nil, nil, err
	}
	w := &walker{r: r, ctx: ctx, path: p, since: q.Since, until: q.Until}
	skip, limit := 0, 0
	if paged {
		skip, limit = q.Skip, q.Limit
	}
	out, err := w.run(ids[:1], ids[1:], skip, limit)
	return out, w, err
}

// Log lists commits reachable from q.Ref, newest first.
func (b *Backend) Log(ctx context.Context, repo string, q domain.LogQuery) ([]domain.Commit, error) {
	r, err := b.open(repo)
	if err != nil {
		return nil, err
	}
	ids, w, err := b.logIDs(ctx, r, q, true)
	if err != nil {
		return nil, fmt.Errorf("gogit: log of %s: %w", repo, err)
	}
	commits := make([]domain.Commit, 0, len(ids))
	for _, id := range ids {
		c, err := w.cache.get(id)
		if err != nil {
			return nil, fmt.Errorf("gogit: log of %s: %w", repo, err)
		}
		commits = append(commits, *c)
	}
	return commits, nil
}

// CountCommits counts what Log would list without Skip and Limit.
func (b *Backend) CountCommits(ctx context.Context, repo string, q domain.LogQuery) (int, error) {
	r, err := b.open(repo)
	if err != nil {
		return 0, err
	}
	ids, _, err := b.logIDs(ctx, r, q, false)
	if err != nil {
		return 0, fmt.Errorf("gogit: count commits of %s: %w", repo, err)
	}
	return len(ids), nil
}

// countReachable counts the commits reachable from id.
func (r *repoh) countReachable(ctx context.Context, id string) (int, error) {
	w := &walker{r: r, ctx: ctx}
	w.cache.r = r
	seen, err := w.reachable([]string{id})
	return len(seen), err
}

// Paint flags of git's merge-base computation.
const (
	parent1 = 1 << iota
	parent2
	stale
	result
)

// mergeBases is git's get_merge_bases(a, b): the best common ancestors,
// newest first.
func (r *repoh) mergeBases(ctx context.Context, cache *commitCache, a, b string) ([]string, error) {
	if a == b {
		return []string{a}, nil
	}
	flags := map[string]int{}
	var q dateQueue
	push := func(id string) error {
		c, err := cache.get(id)
		if err != nil {
			return err
		}
		q.put(id, c.Committer.When.Unix())
		return nil
	}
	flags[a] |= parent1
	flags[b] |= parent2
	if err := push(a); err != nil {
		return nil, err
	}
	if err := push(b); err != nil {
		return nil, err
	}
	var results []string
	nonStale := func() bool {
		for _, it := range q.items {
			if flags[it.id]&stale == 0 {
				return true
			}
		}
		return false
	}
	for q.Len() > 0 && nonStale() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		id := q.get()
		c, err := cache.get(id)
		if err != nil {
			return nil, err
		}
		f := flags[id] & (parent1 | parent2 | stale)
		if f == parent1|parent2 {
			if flags[id]&result == 0 {
				flags[id] |= result
				results = append(results, id)
			}
			f |= stale
		}
		for _, p := range c.ParentIDs {
			if flags[p]&f == f {
				continue
			}
			flags[p] |= f
			if err := push(p); err != nil {
				return nil, err
			}
		}
	}
	// results come out newest first; drop those reachable from another.
	var best []string
	for i, x := range results {
		redundant := false
		for j, y := range results {
			if i == j {
				continue
			}
			ok, err := r.reaches(ctx, cache, y, x)
			if err != nil {
				return nil, err
			}
			if ok {
				redundant = true
				break
			}
		}
		if !redundant {
			best = append(best, x)
		}
	}
	return best, nil
}

// reaches reports whether ancestor is reachable from descendant.
func (r *repoh) reaches(ctx context.Context, cache *commitCache, descendant, ancestor string) (bool, error) {
	if descendant == ancestor {
		return true, nil
	}
	seen := map[string]bool{descendant: true}
	stack := []string{descendant}
	for len(stack) > 0 {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		c, err := cache.get(id)
		if err != nil {
			return false, err
		}
		for _, p := range c.ParentIDs {
			if p == ancestor {
				return true, nil
			}
			if seen[p] {
				continue
			}
			seen[p] = true
			stack = append(stack, p)
		}
	}
	return false, nil
}

// MergeBase is the best common ancestor of a and c ("" when unrelated).
func (b *Backend) MergeBase(ctx context.Context, repo, a, c string) (string, error) {
	r, err := b.open(repo)
	if err != nil {
		return "", err
	}
	ids, err := r.resolveCommits(a, c)
	if err != nil {
		return "", fmt.Errorf("gogit: merge base in %s: %w", repo, err)
	}
	cache := &commitCache{r: r}
	bases, err := r.mergeBases(ctx, cache, ids[0], ids[1])
	if err != nil {
		return "", fmt.Errorf("gogit: merge base in %s: %w", repo, err)
	}
	if len(bases) == 0 {
		return "", nil
	}
	return bases[0], nil
}

// IsAncestor reports whether ancestor is reachable from descendant.
func (b *Backend) IsAncestor(ctx context.Context, repo, ancestor, descendant string) (bool, error) {
	r, err := b.open(repo)
	if err != nil {
		return false, err
	}
	ids, err := r.resolveCommits(ancestor, descendant)
	if err != nil {
		return false, fmt.Errorf("gogit: is ancestor in %s: %w", repo, err)
	}
	cache := &commitCache{r: r}
	ok, err := r.reaches(ctx, cache, ids[1], ids[0])
	if err != nil {
		return false, fmt.Errorf("gogit: is ancestor in %s: %w", repo, err)
	}
	return ok, nil
}

// MergedBranches lists the branches whose heads are reachable from rev:
// one walk of rev's history, which stops as soon as every head is found.
func (b *Backend) MergedBranches(ctx context.Context, repo, rev string) ([]string, error) {
	r, err := b.open(repo)
	if err != nil {
		return nil, err
	}
	ids, err := r.resolveCommits(rev)
	if err != nil {
		return nil, fmt.Errorf("gogit: merged branches in %s: %w", repo, err)
	}
	refs, err := listRefs(r.dir, domain.BranchPrefix)
	if err != nil {
		return nil, fmt.Errorf("gogit: merged branches in %s: %w", repo, err)
	}
	waiting := map[string][]string{} // head -> branch names
	for _, ref := range refs {
		waiting[ref.oid] = append(waiting[ref.oid], strings.TrimPrefix(ref.name, domain.BranchPrefix))
	}
	var names []string
	cache := &commitCache{r: r}
	seen := map[string]bool{ids[0]: true}
	stack := []string{ids[0]}
	for len(stack) > 0 && len(waiting) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		names = append(names, waiting[id]...)
		delete(waiting, id)
		c, err := cache.get(id)
		if err != nil {
			return nil, fmt.Errorf("gogit: merged branches in %s: %w", repo, err)
		}
		for _, p := range c.ParentIDs {
			if !seen[p] {
				seen[p] = true
				stack = append(stack, p)
			}
		}
	}
	sort.Strings(names)
	return names, nil
}

// Contributors groups the newest limit non-merge commits reachable from rev
// by author, tallied as the walk finds them.
func (b *Backend) Contributors(ctx context.Context, repo, rev string, limit int) ([]domain.Contributor, error) {
	r, err := b.open(repo)
	if err != nil {
		return nil, err
	}
	ids, err := r.resolveCommits(rev)
	if err != nil {
		return nil, fmt.Errorf("gogit: contributors of %s: %w", repo, err)
	}
	var tally domain.ContributorTally
	w := &walker{r: r, ctx: ctx, noMerges: true, each: func(c *domain.Commit) {
		tally.Add(c.Author.Name, c.Author.Email)
	}}
	if _, err := w.run(ids, nil, 0, limit); err != nil {
		return nil, fmt.Errorf("gogit: contributors of %s: %w", repo, err)
	}
	return tally.List(), nil
}
