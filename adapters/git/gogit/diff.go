package gogit

import (
	"context"
	"fmt"
	"sort"

	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core/domain"
)

// fileChange is one changed path between two trees (-r, no renames yet).
type fileChange struct {
	oldPath, newPath string
	oldMode, newMode string // "" when missing
	oldID, newID     string
}

// diffTrees lists the changed files between trees a and b, descending
// only into subtrees that differ.
func (r *repoh) diffTrees(ctx context.Context, a, b string) ([]fileChange, error) {
	var out []fileChange
	var walk func(a, b, dir string) error
	addAll := func(tree, dir string, old bool) error {
		t, err := r.loadTree(tree)
		if err != nil {
			return err
		}
		for p, e := range t.Files {
			full := dir + p
			if old {
				out = append(out, fileChange{oldPath: full, newPath: full, oldMode: e.Mode, oldID: e.ID})
			} else {
				out = append(out, fileChange{oldPath: full, newPath: full, newMode: e.Mode, newID: e.ID})
			}
		}
		return nil
	}
	walk = func(a, b, dir string) error {
		if a == b {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		ea, err := gitobject.ReadTree(r, a)
		if err != nil {
			return err
		}
		eb, err := gitobject.ReadTree(r, b)
		if err != nil {
			return err
		}
		ma := map[string]gitobject.TreeEntry{}
		for _, e := range ea {
			ma[e.Name] = e
		}
		mb := map[string]gitobject.TreeEntry{}
		for _, e := range eb {
			mb[e.Name] = e
		}
		for _, x := range ea {
			full := dir + x.Name
			y, ok := mb[x.Name]
			switch {
			case !ok || x.IsDir() != y.IsDir():
				if x.IsDir() {
					if err := addAll(x.ID, full+"/", true); err != nil {
						return err
					}
				} else {
					out = append(out, fileChange{oldPath: full, newPath: full, oldMode: x.PrintedMode(), oldID: x.ID})
				}
			case x.IsDir():
				if err := walk(x.ID, y.ID, full+"/"); err != nil {
					return err
				}
			case x.ID != y.ID || x.PrintedMode() != y.PrintedMode():
				out = append(out, fileChange{oldPath: full, newPath: full, oldMode: x.PrintedMode(), newMode: y.PrintedMode(), oldID: x.ID, newID: y.ID})
			}
		}
		for _, y := range eb {
			full := dir + y.Name
			x, ok := ma[y.Name]
			if ok && x.IsDir() == y.IsDir() {
				continue
			}
			if y.IsDir() {
				if err := addAll(y.ID, full+"/", false); err != nil {
					return err
				}
			} else {
				out = append(out, fileChange{oldPath: full, newPath: full, newMode: y.PrintedMode(), newID: y.ID})
			}
		}
		return nil
	}
	if err := walk(a, b, ""); err != nil {
		return nil, err
	}
	return out, nil
}

// blobData reads a blob ("" id: empty).
func (r *repoh) blobData(id, mode string) ([]byte, error) {
	if id == "" {
		return nil, nil
	}
	if mode == "160000" {
		return []byte("Subproject commit " + id + "\n"), nil
	}
	o, err := r.ReadObject(id)
	if err != nil {
		return nil, err
	}
	return o.Data, nil
}

// detectRenames pairs deleted and added files like git diff -M (50%).
func (r *repoh) detectRenames(changes []fileChange) ([]fileChange, error) {
	var dels, adds []int
	for i, c := range changes {
		switch {
		case c.newMode == "":
			dels = append(dels, i)
		case c.oldMode == "":
			adds = append(adds, i)
		}
	}
	if len(dels) == 0 || len(adds) == 0 {
		return changes, nil
	}
	usedSrc := map[int]bool{}
	usedDst := map[int]bool{}
	pair := map[int]int{} // dst -> src
	// Exact renames first.
	for _, d := range adds {
		for _, s := range dels {
			if !usedSrc[s] && changes[s].oldID == changes[d].newID && changes[s].oldMode != "160000" {
				usedSrc[s], usedDst[d] = true, true
				pair[d] = s
				break
			}
		}
	}
	type cand struct{ score, dst, src int }
	var cands []cand
	sigs := map[int]map[uint32]int{}
	data := map[int][]byte{}
	load := func(i int, id, mode string) ([]byte, error) {
		if d, ok := data[i]; ok {
			return d, nil
		}
		d, err := r.blobData(id, mode)
		data[i] = d
		return d, err
	}
	for _, d := range adds {
		if usedDst[d] || changes[d].newMode == "160000" {
			continue
		}
		dd, err := load(d, changes[d].newID, changes[d].newMode)
		if err != nil {
			return nil, err
		}
		for _, s := range dels {
			if usedSrc[s] || changes[s].oldMode == "160000" {
				continue
			}
			sd, err := load(s, changes[s].oldID, changes[s].oldMode)
			if err != nil {
				return nil, err
			}
			score := similarity(sd, dd, sigs, s, d)
			if score >= minScore {
				cands = append(cands, cand{score, d, s})
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	for _, c := range cands {
		if usedSrc[c.src] || usedDst[c.dst] {
			continue
		}
		usedSrc[c.src], usedDst[c.dst] = true, true
		pair[c.dst] = c.src
	}
	var out []fileChange
	for i, c := range changes {
		if usedSrc[i] {
			continue
		}
		if s, ok := pair[i]; ok {
			src := changes[s]
			c.oldPath, c.oldMode, c.oldID = src.oldPath, src.oldMode, src.oldID
		}
		out = append(out, c)
	}
	return out, nil
}

const (
	maxScore = 60000
	minScore = maxScore / 2
)

// spanHashes is diffcore-delta's hash_chars: byte counts per chunk hash,
// chunks ending at "\n" or after 64 bytes, CR of CRLF ignored in text.
func spanHashes(buf []byte) map[uint32]int {
	text := !isBinary(buf)
	h := map[uint32]int{}
	var accum1, accum2 uint32
	n := 0
	for i := 0; i < len(buf); i++ {
		c := uint32(buf[i])
		old1 := accum1
		if text && c == '\r' && i+1 < len(buf) && buf[i+1] == '\n' {
			continue
		}
		accum1 = (accum1 << 7) ^ (accum2 >> 25)
		accum2 = (accum2 << 7) ^ (old1 >> 25)
		accum1 += c
		n++
		if n < 64 && c != '\n' {
			continue
		}
		h[(accum1+accum2*0x61)%107927] += n
		n = 0
		accum1, accum2 = 0, 0
	}
	if n > 0 {
		h[(accum1+accum2*0x61)%107927] += n
	}
	return h
}

// similarity is git's estimate_similarity score of src -> dst.
func similarity(src, dst []byte, sigs map[int]map[uint32]int, si, di int) int {
	maxSize, minSize := len(src), len(dst)
	if maxSize < minSize {
		maxSize, minSize = minSize, maxSize
	}
	if maxSize == 0 {
		return 0
	}
	if maxSize*(maxScore-minScore) < (maxSize-minSize)*maxScore {
		return 0
	}
	hs, ok := sigs[si]
	if !ok {
		hs = spanHashes(src)
		sigs[si] = hs
	}
	hd, ok := sigs[-1-di]
	if !ok {
		hd = spanHashes(dst)
		sigs[-1-di] = hd
	}
	copied := 0
	for k, sc := range hs {
		copied += min(sc, hd[k])
	}
	return copied * maxScore / maxSize
}

// printMode is a mode as GitLab shows it: "0" for a missing side.
func printMode(m string) string {
	if m == "" {
		return "0"
	}
	return m
}

// diffEnds resolves the two trees of a diff.
func (r *repoh) diffEnds(from, to string) (string, string, error) {
	if err := check.Diff(from, to); err != nil {
		return "", "", err
	}
	tc, err := r.resolveCommit(to)
	if err != nil {
		return "", "", err
	}
	switch {
	case from != "":
		fc, err := r.resolveCommit(from)
		if err != nil {
			return "", "", err
		}
		return fc.TreeID, tc.TreeID, nil
	case len(tc.ParentIDs) > 0:
		pc, err := gitobject.ReadCommit(r, tc.ParentIDs[0])
		if err != nil {
			return "", "", err
		}
		return pc.TreeID, tc.TreeID, nil
	default:
		return gitobject.EmptyTree, tc.TreeID, nil
	}
}

// fileDiffs computes the FileDiffs between two trees.
func (r *repoh) fileDiffs(ctx context.Context, a, z string) ([]domain.FileDiff, error) {
	changes, err := r.diffTrees(ctx, a, z)
	if err != nil {
		return nil, err
	}
	changes, err = r.detectRenames(changes)
	if err != nil {
		return nil, err
	}
	diffs := make([]domain.FileDiff, 0, len(changes))
	for _, c := range changes {
		d := domain.FileDiff{
			OldPath: c.oldPath, NewPath: c.newPath,
			AMode: printMode(c.oldMode), BMode: printMode(c.newMode),
			NewFile: c.oldMode == "", DeletedFile: c.newMode == "",
			RenamedFile: c.oldMode != "" && c.newMode != "" && c.oldPath != c.newPath,
		}
		if c.oldID != c.newID {
			oldData, err := r.blobData(c.oldID, c.oldMode)
			if err != nil {
				return nil, err
			}
			newData, err := r.blobData(c.newID, c.newMode)
			if err != nil {
				return nil, err
			}
			if isBinary(oldData) || isBinary(newData) {
				d.Binary = true
				an, bn := "a/"+c.oldPath, "b/"+c.newPath
				if c.oldMode == "" {
					an = "/dev/null"
				}
				if c.newMode == "" {
					bn = "/dev/null"
				}
				d.Diff = fmt.Sprintf("Binary files %s and %s differ\n", an, bn)
			} else {
				d.Diff, d.Additions, d.Deletions = unified(oldData, newData)
			}
		}
		diffs = append(diffs, d)
	}
	key := func(d domain.FileDiff) string {
		if d.DeletedFile {
			return d.OldPath
		}
		return d.NewPath
	}
	sort.SliceStable(diffs, func(i, j int) bool { return key(diffs[i]) < key(diffs[j]) })
	return diffs, nil
}

// Diff compares two commits.
func (b *Backend) Diff(ctx context.Context, repo, from, to string) ([]domain.FileDiff, error) {
	r, err := b.open(repo)
	if err != nil {
		return nil, err
	}
	a, z, err := r.diffEnds(from, to)
	if err != nil {
		return nil, fmt.Errorf("gogit: diff of %s: %w", repo, err)
	}
	diffs, err := r.fileDiffs(ctx, a, z)
	if err != nil {
		return nil, fmt.Errorf("gogit: diff of %s: %w", repo, err)
	}
	return diffs, nil
}

// CommitStats counts changed lines of sha against its first parent.
func (b *Backend) CommitStats(ctx context.Context, repo, sha string) (domain.CommitStats, error) {
	r, err := b.open(repo)
	if err != nil {
		return domain.CommitStats{}, err
	}
	a, z, err := r.diffEnds("", sha)
	if err != nil {
		return domain.CommitStats{}, fmt.Errorf("gogit: stats of %s in %s: %w", sha, repo, err)
	}
	diffs, err := r.fileDiffs(ctx, a, z)
	if err != nil {
		return domain.CommitStats{}, fmt.Errorf("gogit: stats of %s in %s: %w", sha, repo, err)
	}
	var s domain.CommitStats
	for _, d := range diffs {
		s.Additions += d.Additions
		s.Deletions += d.Deletions
	}
	return s, nil
}
