package gogit

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

var _ ports.RepoBundler = (*Backend)(nil)

// bundleSignature starts a v2 bundle, the format `git bundle create`
// writes for SHA-1 repositories.
const bundleSignature = "# v2 git bundle"

// Bundle writes what `git bundle create - --all` writes: a v2 header
// naming every ref (and HEAD when it resolves), then a packfile of every
// object they reach.
func (b *Backend) Bundle(ctx context.Context, repo string, w io.Writer) (bool, error) {
	r, err := b.open(repo)
	if err != nil {
		return false, fmt.Errorf("gogit: bundle %s: %w", repo, err)
	}
	iter, err := r.st.IterReferences()
	if err != nil {
		return false, fmt.Errorf("gogit: bundle %s: %w", repo, err)
	}
	var refs []*plumbing.Reference
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() == plumbing.HashReference && strings.HasPrefix(ref.Name().String(), "refs/") {
			refs = append(refs, ref)
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("gogit: bundle %s: %w", repo, err)
	}
	if len(refs) == 0 {
		return true, nil
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	header := bundleSignature + "\n"
	var tips []plumbing.Hash
	if head, err := storer.ResolveReference(r.st, plumbing.HEAD); err == nil {
		header += head.Hash().String() + " HEAD\n"
	}
	for _, ref := range refs {
		header += ref.Hash().String() + " " + ref.Name().String() + "\n"
		tips = append(tips, ref.Hash())
	}
	objects, err := reachable(ctx, r, tips)
	if err != nil {
		return false, fmt.Errorf("gogit: bundle %s: walk objects: %w", repo, err)
	}
	bw := bufio.NewWriter(w)
	if _, err := bw.WriteString(header + "\n"); err != nil {
		return false, err
	}
	if _, err := packfile.NewEncoder(bw, r.st, false).Encode(objects, 10); err != nil {
		return false, fmt.Errorf("gogit: bundle %s: pack: %w", repo, err)
	}
	return false, bw.Flush()
}

// Unbundle builds repo from a bundle: its pack is stored as a packfile
// (with its index) and its refs/* written; HEAD names defaultBranch.
func (b *Backend) Unbundle(ctx context.Context, repo, defaultBranch string, r io.Reader) error {
	final, err := b.disk.Path(repo)
	if err != nil {
		return err
	}
	if defaultBranch, err = check.InitialBranch(defaultBranch); err != nil {
		return err
	}
	err = b.build(ctx, final, func(tmp string) error {
		if err := initBare(tmp, domain.BranchPrefix+defaultBranch); err != nil {
			return err
		}
		if r == nil {
			return nil
		}
		br := bufio.NewReader(r)
		refs, err := readBundleHeader(br)
		if err != nil {
			return err
		}
		h := openDir(tmp)
		if err := packfile.UpdateObjectStorage(h.st, br); err != nil {
			return fmt.Errorf("store the pack: %v: %w", err, core.ErrInvalid)
		}
		for _, ref := range refs {
			if _, err := h.st.EncodedObject(plumbing.AnyObject, ref.Hash()); err != nil {
				return fmt.Errorf("ref %s: object %s not in the bundle: %w", ref.Name(), ref.Hash(), core.ErrInvalid)
			}
			if err := h.st.SetReference(ref); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("gogit: unbundle %s: %w", repo, err)
	}
	return nil
}

// readBundleHeader reads a v2 bundle's header up to the blank line before
// the pack, returning its refs/* (HEAD is left to the caller). A bundle
// with prerequisites (an incremental one) is refused: a backup holds
// whole repositories.
func readBundleHeader(br *bufio.Reader) ([]*plumbing.Reference, error) {
	line, err := br.ReadString('\n')
	if err != nil || strings.TrimSuffix(line, "\n") != bundleSignature {
		return nil, fmt.Errorf("not a v2 git bundle: %w", core.ErrInvalid)
	}
	var refs []*plumbing.Reference
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("bundle header: %v: %w", err, core.ErrInvalid)
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			return refs, nil
		}
		if strings.HasPrefix(line, "-") {
			return nil, fmt.Errorf("an incremental bundle (prerequisite %s): %w", line[1:], core.ErrInvalid)
		}
		oid, name, ok := strings.Cut(line, " ")
		if !ok || !gitnames.IsOID(oid) {
			return nil, fmt.Errorf("bundle header line %q: %w", line, core.ErrInvalid)
		}
		if name == "HEAD" {
			continue
		}
		if !strings.HasPrefix(name, "refs/") || strings.Contains(name, "..") || strings.ContainsAny(name, "\x00\\ ~^:?*[") {
			return nil, fmt.Errorf("bundle ref %q: %w", name, core.ErrInvalid)
		}
		refs = append(refs, plumbing.NewHashReference(plumbing.ReferenceName(name), plumbing.NewHash(oid)))
	}
}

// reachable lists every object the tips reach: commits, their trees and
// blobs, annotated tags and what they point at (submodule commits aside,
// which live elsewhere). Blobs are named by their trees, never read.
func reachable(ctx context.Context, r *repoh, tips []plumbing.Hash) ([]plumbing.Hash, error) {
	seen := map[string]bool{}
	var out []plumbing.Hash
	type item struct{ id, typ string }
	stack := make([]item, 0, len(tips))
	for _, t := range tips {
		stack = append(stack, item{id: t.String()})
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[it.id] {
			continue
		}
		seen[it.id] = true
		out = append(out, plumbing.NewHash(it.id))
		if it.typ == "blob" {
			continue
		}
		if len(seen)%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		o, err := r.ReadObject(it.id)
		if err != nil {
			return nil, err
		}
		switch o.Type {
		case "commit":
			c, err := gitobject.ParseCommit(o.ID, o.Data)
			if err != nil {
				return nil, err
			}
			stack = append(stack, item{id: c.TreeID, typ: "tree"})
			for _, p := range c.ParentIDs {
				stack = append(stack, item{id: p, typ: "commit"})
			}
		case "tree":
			entries, err := gitobject.ParseTree(o.ID, o.Data)
			if err != nil {
				return nil, err
			}
			for _, e := range entries {
				if t := e.Type(); t != "commit" {
					stack = append(stack, item{id: e.ID, typ: t})
				}
			}
		case "tag":
			t, err := gitobject.ParseTag(o.ID, o.Data)
			if err != nil {
				return nil, err
			}
			stack = append(stack, item{id: t.Object, typ: t.Type})
		}
	}
	return out, nil
}
