package gitcli

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core/domain"
)

// mergedCacheSize bounds the remembered (target, branch head) answers.
const mergedCacheSize = 1 << 16

// mergedKey is one "is head reachable from target" question. Both are
// commit SHAs, so the answer never changes: the cache needs no
// invalidation and stays right on any number of nodes.
type mergedKey struct {
	gitDir, target, head string
}

// commitCacheSize bounds the parsed commits kept (a few MB): enough for
// the first pages and branch heads of many repositories.
const commitCacheSize = 1 << 15

// commitKey names a commit of one repository: objects never change, but a
// repository must not see another's.
type commitKey struct{ gitDir, id string }

// pathKey names a path as of a commit of one repository.
type pathKey struct{ gitDir, commit, path string }

// lru is a bounded map dropping the least recently used entry; its values
// are answers about immutable inputs, so it needs no invalidation.
type lru[K comparable, V any] struct {
	mu  sync.Mutex
	max int
	ll  *list.List
	m   map[K]*list.Element
}

type lruEntry[K comparable, V any] struct {
	key K
	val V
}

func newLRU[K comparable, V any](max int) *lru[K, V] {
	return &lru[K, V]{max: max, ll: list.New(), m: map[K]*list.Element{}}
}

func (c *lru[K, V]) get(k K) (v V, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok {
		return v, false
	}
	c.ll.MoveToFront(e)
	return e.Value.(*lruEntry[K, V]).val, true
}

func (c *lru[K, V]) put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[k]; ok {
		e.Value.(*lruEntry[K, V]).val = v
		c.ll.MoveToFront(e)
		return
	}
	c.m[k] = c.ll.PushFront(&lruEntry[K, V]{key: k, val: v})
	for c.ll.Len() > c.max {
		old := c.ll.Back()
		c.ll.Remove(old)
		delete(c.m, old.Value.(*lruEntry[K, V]).key)
	}
}

// readCommit is gitobject.ReadCommit through the commit cache.
func (b *Backend) readCommit(c *catFile, id string) (domain.Commit, error) {
	k := commitKey{c.gitDir, id}
	if commit, ok := b.commits.get(k); ok {
		return commit, nil
	}
	commit, err := gitobject.ReadCommit(c, id)
	if err != nil {
		return domain.Commit{}, err
	}
	b.commits.put(k, commit)
	return commit, nil
}

// branchHeads reads every branch's object name as git stores refs (loose
// files under refs/heads, then packed-refs), without starting git. Loose
// refs are read first, as git does, so a concurrent pack-refs cannot hide
// a branch. packed-refs comes through the backend's cache.
func (b *Backend) branchHeads(gitDir string) (map[string]string, error) {
	heads := map[string]string{}
	root := filepath.Join(gitDir, "refs", "heads")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if strings.HasSuffix(name, ".lock") {
			return nil // a ref being written, not a ref (git skips them too)
		}
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // deleted meanwhile; packed-refs may still hold it
		}
		if err != nil {
			return err
		}
		oid := strings.TrimSpace(string(data))
		if strings.HasPrefix(oid, "ref: ") { // a symbolic ref: list its target
			target, ok, err := gitobject.ReadRef(gitDir, domain.BranchPrefix+name)
			if err != nil || !ok {
				return err
			}
			oid = target
		}
		if gitnames.IsOID(oid) {
			heads[name] = oid
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read loose branches: %w", err)
	}
	packed, err := b.packed.Refs(gitDir)
	if err != nil {
		return nil, err
	}
	for ref, oid := range packed {
		name, ok := strings.CutPrefix(ref, domain.BranchPrefix)
		if !ok {
			continue
		}
		if _, loose := heads[name]; !loose {
			heads[name] = oid
		}
	}
	return heads, nil
}

// refHeads runs for-each-ref filter over the branches: name -> object.
func (b *Backend) refHeads(ctx context.Context, gitDir, filter string) (map[string]string, error) {
	out, err := b.runIn(ctx, gitDir, "for-each-ref", filter, "--format=%(objectname) %(refname:lstrip=2)", "--", "refs/heads/")
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if oid, name, ok := strings.Cut(line, " "); ok {
			m[name] = oid
		}
	}
	return m, nil
}

// mergedBranches lists the branches whose heads are reachable from the
// commit target. Answers are cached per (target, head); only when a head
// is new does git walk the history, listing merged and unmerged branches
// with their heads, so each cached answer is about the exact head git
// judged, however the branches move meanwhile.
func (b *Backend) mergedBranches(ctx context.Context, gitDir, target string) ([]string, error) {
	heads, err := b.branchHeads(gitDir)
	if err != nil {
		return nil, err
	}
	var names []string
	missing := false
	for name, head := range heads {
		merged, ok := b.merged.get(mergedKey{gitDir, target, head})
		if !ok {
			missing = true
			break
		}
		if merged {
			names = append(names, name)
		}
	}
	if missing {
		names = names[:0]
		in, err := b.refHeads(ctx, gitDir, "--merged="+target)
		if err != nil {
			return nil, err
		}
		out, err := b.refHeads(ctx, gitDir, "--no-merged="+target)
		if err != nil {
			return nil, err
		}
		for _, oid := range in {
			b.merged.put(mergedKey{gitDir, target, oid}, true)
		}
		for _, oid := range out {
			b.merged.put(mergedKey{gitDir, target, oid}, false)
		}
		for name := range in {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names, nil
}
