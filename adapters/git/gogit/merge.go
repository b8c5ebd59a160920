package gogit

import (
	"bytes"
	"context"
	"fmt"
	"sort"

	"github.com/hearth-forge/hearth/adapters/git/gitinput"
	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// hunk is one change of a side against the base: base lines
// [i1, i1+chg1) become side lines [i2, i2+chg2).
type hunk struct{ i1, chg1, i2, chg2 int }

func hunks(base, side [][]byte) []hunk {
	fa, fb := diffLines(base, side)
	var out []hunk
	i, j := 0, 0
	for i < len(base) || j < len(side) {
		if (i < len(base) && fa.changed(i)) || (j < len(side) && fb.changed(j)) {
			h := hunk{i1: i, i2: j}
			for i < len(base) && fa.changed(i) {
				i++
			}
			for j < len(side) && fb.changed(j) {
				j++
			}
			h.chg1, h.chg2 = i-h.i1, j-h.i2
			out = append(out, h)
			continue
		}
		i++
		j++
	}
	return out
}

// mergeText is git's xdl_merge (zealous) reduced to its verdict: the
// merged content, or ok false when changes of both sides overlap (or
// touch) and differ.
func mergeText(base, ours, theirs []byte) ([]byte, bool) {
	b, o, t := splitLines(base), splitLines(ours), splitLines(theirs)
	ho, ht := hunks(b, o), hunks(b, t)
	var out bytes.Buffer
	// sideText renders base range [lo, hi) as a side with hunks hs.
	sideText := func(side [][]byte, hs []hunk, lo, hi int) []byte {
		var buf bytes.Buffer
		pos := lo
		for _, h := range hs {
			for ; pos < h.i1; pos++ {
				buf.Write(b[pos])
			}
			for k := h.i2; k < h.i2+h.chg2; k++ {
				buf.Write(side[k])
			}
			pos = h.i1 + h.chg1
		}
		for ; pos < hi; pos++ {
			buf.Write(b[pos])
		}
		return buf.Bytes()
	}
	pos := 0
	i, j := 0, 0
	for i < len(ho) || j < len(ht) {
		// Take the next cluster of overlapping hunks.
		var lo, hi int
		var co, ct []hunk
		switch {
		case j >= len(ht) || (i < len(ho) && ho[i].i1+ho[i].chg1 < ht[j].i1):
			co = []hunk{ho[i]}
			lo, hi = ho[i].i1, ho[i].i1+ho[i].chg1
			i++
		case i >= len(ho) || ht[j].i1+ht[j].chg1 < ho[i].i1:
			ct = []hunk{ht[j]}
			lo, hi = ht[j].i1, ht[j].i1+ht[j].chg1
			j++
		default:
			lo = min(ho[i].i1, ht[j].i1)
			hi = max(ho[i].i1+ho[i].chg1, ht[j].i1+ht[j].chg1)
			co, ct = []hunk{ho[i]}, []hunk{ht[j]}
			i++
			j++
			for {
				if i < len(ho) && ho[i].i1 <= hi {
					co = append(co, ho[i])
					hi = max(hi, ho[i].i1+ho[i].chg1)
					i++
					continue
				}
				if j < len(ht) && ht[j].i1 <= hi {
					ct = append(ct, ht[j])
					hi = max(hi, ht[j].i1+ht[j].chg1)
					j++
					continue
				}
				break
			}
		}
		for ; pos < lo; pos++ {
			out.Write(b[pos])
		}
		switch {
		case ct == nil:
			out.Write(sideText(o, co, lo, hi))
		case co == nil:
			out.Write(sideText(t, ct, lo, hi))
		default:
			so, st := sideText(o, co, lo, hi), sideText(t, ct, lo, hi)
			if !bytes.Equal(so, st) {
				return nil, false
			}
			out.Write(so)
		}
		pos = hi
	}
	for ; pos < len(b); pos++ {
		out.Write(b[pos])
	}
	return out.Bytes(), true
}

// mergeTrees is a three-way merge of trees: the merged tree, or the
// conflicting paths.
func (r *repoh) mergeTrees(base, ours, theirs string) (string, []string, error) {
	tb, err := r.loadTree(base)
	if err != nil {
		return "", nil, err
	}
	to, err := r.loadTree(ours)
	if err != nil {
		return "", nil, err
	}
	tt, err := r.loadTree(theirs)
	if err != nil {
		return "", nil, err
	}
	paths := map[string]bool{}
	for _, t := range []*gitobject.FlatTree{tb, to, tt} {
		for p := range t.Files {
			paths[p] = true
		}
	}
	res := gitobject.NewFlatTree()
	var conflicts []string
	for p := range paths {
		eb, okb := tb.Files[p]
		eo, oko := to.Files[p]
		et, okt := tt.Files[p]
		switch {
		case oko == okt && eo == et:
			if oko {
				res.Add(p, eo)
			}
		case okb == oko && eb == eo:
			if okt {
				res.Add(p, et)
			}
		case okb == okt && eb == et:
			if oko {
				res.Add(p, eo)
			}
		case !oko || !okt:
			conflicts = append(conflicts, p) // modify/delete
		default:
			mode := ""
			switch {
			case eo.Mode == et.Mode:
				mode = eo.Mode
			case okb && eb.Mode == eo.Mode:
				mode = et.Mode
			case okb && eb.Mode == et.Mode:
				mode = eo.Mode
			}
			regular := func(m string) bool { return m == "100644" || m == "100755" }
			if mode == "" || !okb || !regular(eo.Mode) || !regular(et.Mode) || !regular(eb.Mode) {
				conflicts = append(conflicts, p)
				continue
			}
			id := eo.ID
			if eo.ID != et.ID {
				var data [3][]byte
				for k, e := range []gitobject.FileEntry{eb, eo, et} {
					if data[k], err = r.blobData(e.ID, e.Mode); err != nil {
						return "", nil, err
					}
				}
				if isBinary(data[0]) || isBinary(data[1]) || isBinary(data[2]) {
					conflicts = append(conflicts, p)
					continue
				}
				merged, ok := mergeText(data[0], data[1], data[2])
				if !ok {
					conflicts = append(conflicts, p)
					continue
				}
				if id, err = r.write("blob", merged); err != nil {
					return "", nil, err
				}
			}
			res.Add(p, gitobject.FileEntry{Mode: mode, ID: id})
		}
	}
	// A file where the other side has a directory is a conflict.
	for p := range res.Files {
		if res.IsDir(p) {
			conflicts = append(conflicts, p)
		}
	}
	if len(conflicts) > 0 {
		sort.Strings(conflicts)
		return "", dedupe(conflicts), nil
	}
	t, err := r.writeTree(res)
	return t, nil, err
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// Merge writes a merge commit of req.Theirs into req.Ours.
func (b *Backend) Merge(ctx context.Context, repo string, req domain.MergeSpec) (domain.MergeResult, error) {
	r, err := b.open(repo)
	if err != nil {
		return domain.MergeResult{}, err
	}
	if err := check.Merge(req); err != nil {
		return domain.MergeResult{}, err
	}
	ids, err := r.resolveCommits(req.Ours, req.Theirs)
	if err != nil {
		return domain.MergeResult{}, fmt.Errorf("gogit: merge in %s: %w", repo, err)
	}
	cache := &commitCache{r: r}
	bases, err := r.mergeBases(ctx, cache, ids[0], ids[1])
	if err != nil {
		return domain.MergeResult{}, fmt.Errorf("gogit: merge in %s: %w", repo, err)
	}
	if len(bases) == 0 {
		return domain.MergeResult{}, core.BadRequest(gitinput.MsgNoCommonHistory)
	}
	trees := [3]string{}
	for k, id := range []string{bases[0], ids[0], ids[1]} {
		c, err := cache.get(id)
		if err != nil {
			return domain.MergeResult{}, fmt.Errorf("gogit: merge in %s: %w", repo, err)
		}
		trees[k] = c.TreeID
	}
	tree, conflicts, err := r.mergeTrees(trees[0], trees[1], trees[2])
	if err != nil {
		return domain.MergeResult{}, fmt.Errorf("gogit: merge in %s: %w", repo, err)
	}
	if len(conflicts) > 0 {
		return domain.MergeResult{Conflicts: conflicts}, nil
	}
	if req.DryRun {
		return domain.MergeResult{TreeID: tree}, nil
	}
	id, err := r.commitTree(tree, ids, req.Message, req.Author, req.Committer)
	if err != nil {
		return domain.MergeResult{}, fmt.Errorf("gogit: merge in %s: %w", repo, err)
	}
	return domain.MergeResult{CommitID: id, TreeID: tree}, nil
}

// CherryPick writes a commit applying the change of sha on top of onto.
func (b *Backend) CherryPick(ctx context.Context, repo, sha, onto string, committer domain.Signature) (domain.MergeResult, error) {
	r, err := b.open(repo)
	if err != nil {
		return domain.MergeResult{}, err
	}
	if err := check.CherryPick(sha, onto, committer); err != nil {
		return domain.MergeResult{}, err
	}
	fail := func(err error) (domain.MergeResult, error) {
		return domain.MergeResult{}, fmt.Errorf("gogit: cherry-pick in %s: %w", repo, err)
	}
	pick, err := r.resolveCommit(sha)
	if err != nil {
		return fail(err)
	}
	target, err := r.resolveCommit(onto)
	if err != nil {
		return fail(err)
	}
	if err := check.CherryPickable(pick); err != nil {
		return fail(err)
	}
	baseTree := gitobject.EmptyTree
	if len(pick.ParentIDs) == 1 {
		parent, err := gitobject.ReadCommit(r, pick.ParentIDs[0])
		if err != nil {
			return fail(err)
		}
		baseTree = parent.TreeID
	}
	tree, conflicts, err := r.mergeTrees(baseTree, target.TreeID, pick.TreeID)
	if err != nil {
		return fail(err)
	}
	if len(conflicts) > 0 {
		return domain.MergeResult{Conflicts: conflicts}, nil
	}
	if tree == target.TreeID {
		return domain.MergeResult{}, core.BadRequest(gitinput.MsgNothingToPick)
	}
	id, err := r.commitTree(tree, []string{target.ID}, pick.Message, pick.Author, committer)
	if err != nil {
		return fail(err)
	}
	return domain.MergeResult{CommitID: id, TreeID: tree}, nil
}
