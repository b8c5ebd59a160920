package gitcli

import (
	"bufio"
	"bytes"
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

type mergedEntry struct {
	key    mergedKey
	merged bool
}

// mergedCache is a bounded LRU of reachability answers: without it every
// branch list walks the default branch's whole history.
type mergedCache struct {
	mu  sync.Mutex
	max int
	ll  *list.List
	m   map[mergedKey]*list.Element
}

func newMergedCache(max int) *mergedCache {
	return &mergedCache{max: max, ll: list.New(), m: map[mergedKey]*list.Element{}}
}

func (c *mergedCache) get(k mergedKey) (merged, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok {
		return false, false
	}
	c.ll.MoveToFront(e)
	return e.Value.(*mergedEntry).merged, true
}

func (c *mergedCache) put(k mergedKey, merged bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[k]; ok {
		e.Value.(*mergedEntry).merged = merged
		c.ll.MoveToFront(e)
		return
	}
	c.m[k] = c.ll.PushFront(&mergedEntry{key: k, merged: merged})
	for c.ll.Len() > c.max {
		old := c.ll.Back()
		c.ll.Remove(old)
		delete(c.m, old.Value.(*mergedEntry).key)
	}
}

// branchHeads reads every branch's object name as git stores refs (loose
// files under refs/heads, then packed-refs), without starting git. Loose
// refs are read first, as git does, so a concurrent pack-refs cannot hide
// a branch.
func branchHeads(gitDir string) (map[string]string, error) {
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
	data, err := os.ReadFile(filepath.Join(gitDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return heads, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) < 42 || line[40] != ' ' {
			continue // header or peeled line
		}
		name, ok := bytes.CutPrefix(line[41:], []byte("refs/heads/"))
		if !ok {
			continue
		}
		if _, loose := heads[string(name)]; !loose {
			heads[string(name)] = string(line[:40])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
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
	heads, err := branchHeads(gitDir)
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
