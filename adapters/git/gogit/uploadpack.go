package gogit

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"

	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/core"
)

// go-git cannot reuse the deltas already in the repository's packs the
// way git's pack-objects does: every delta is searched anew, which costs
// more than sending the objects whole once a pack is large. Packs of up
// to deltaMaxObjects objects (fetches, small clones) are deltified with
// go-git's window; bigger ones are sent without deltas.
const (
	packWindow      = 10
	deltaMaxObjects = 10000
)

// fetchRequest is what a client asked for before negotiation.
type fetchRequest struct {
	wants []plumbing.Hash
	caps  map[string]bool
}

// uploadPack serves a fetch after the advertisement: the wants, rounds of
// haves (one per request when stateless, as many as the client needs
// otherwise), then the pack. It follows git's upload-pack for clients
// with multi_ack_detailed (git's own) and without: common haves are
// acknowledged, "ready" is never said, so the client decides when it is
// done.
func (r *repoh) uploadPack(ctx context.Context, br *bufio.Reader, w io.Writer, stateless bool) error {
	req, err := readWants(br)
	if errors.Is(err, io.EOF) && !stateless {
		return nil // the client hung up after the advertisement (ls-remote)
	}
	if err != nil {
		return err
	}
	if req == nil {
		return nil // a flush instead of wants: nothing to fetch
	}
	out := bufio.NewWriterSize(w, 64<<10)
	p := &pktWriter{w: out}
	for _, h := range req.wants {
		if ok, err := r.has(h); err != nil {
			return err
		} else if !ok {
			p.line("ERR upload-pack: not our ref " + h.String() + "\n")
			_ = out.Flush()
			return core.BadRequest("gogit: want of a missing object " + h.String())
		}
	}
	multiAck := req.caps["multi_ack_detailed"]
	var common []plumbing.Hash
	for {
		line, err := readPkt(br)
		if errors.Is(err, errFlush) {
			// End of a round of haves.
			if len(common) == 0 || multiAck {
				p.line("NAK\n")
			}
			if err := flushOut(p, out); err != nil {
				return err
			}
			if stateless {
				return nil
			}
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return core.BadRequest("gogit: fetch request ends before done")
			}
			return err
		}
		s := strings.TrimSuffix(string(line), "\n")
		if s == "done" {
			break
		}
		hex, ok := strings.CutPrefix(s, "have ")
		if !ok || !gitnames.IsOID(hex) {
			return core.BadRequest(fmt.Sprintf("gogit: unexpected line %q in fetch negotiation", s))
		}
		h := plumbing.NewHash(hex)
		if _, err := r.st.EncodedObject(plumbing.CommitObject, h); err != nil {
			continue // not ours (or not a commit): not common
		}
		common = append(common, h)
		switch {
		case multiAck:
			p.line("ACK " + hex + " common\n")
		case len(common) == 1:
			p.line("ACK " + hex + "\n")
		}
	}
	if len(common) == 0 {
		p.line("NAK\n")
	} else if multiAck {
		p.line("ACK " + common[len(common)-1].String() + "\n")
	}
	if p.err != nil {
		return p.err
	}
	return r.sendPack(ctx, req, common, out)
}

func flushOut(p *pktWriter, out *bufio.Writer) error {
	if p.err != nil {
		return p.err
	}
	return out.Flush()
}

// readWants reads the want section: nil when the client sent a flush
// alone. Shallow and filter requests are refused: the capabilities were
// not offered, so a client that sends them anyway gets an ERR line.
func readWants(br *bufio.Reader) (*fetchRequest, error) {
	req := &fetchRequest{caps: map[string]bool{}}
	for {
		line, err := readPkt(br)
		if errors.Is(err, errFlush) {
			if len(req.wants) == 0 {
				return nil, nil
			}
			return req, nil
		}
		if err != nil {
			return nil, err
		}
		s := strings.TrimSuffix(string(line), "\n")
		rest, ok := strings.CutPrefix(s, "want ")
		if !ok {
			for _, kw := range []string{"shallow ", "deepen", "filter "} {
				if strings.HasPrefix(s, kw) {
					return nil, core.NotAllowed("the gogit backend cannot serve shallow or partial fetches")
				}
			}
			return nil, core.BadRequest(fmt.Sprintf("gogit: unexpected line %q in fetch request", s))
		}
		hex, capList, _ := strings.Cut(rest, " ")
		if !gitnames.IsOID(hex) {
			return nil, core.BadRequest(fmt.Sprintf("gogit: bad want %q", rest))
		}
		if len(req.wants) == 0 {
			for _, c := range strings.Fields(capList) {
				req.caps[c] = true
			}
		}
		req.wants = append(req.wants, plumbing.NewHash(hex))
	}
}

// has reports whether the object is in the repository.
func (r *repoh) has(h plumbing.Hash) (bool, error) {
	if r.q != nil {
		if _, err := r.q.FindOffset(h); err == nil {
			return true, nil
		}
	}
	err := r.st.HasEncodedObject(h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return false, nil
	}
	return err == nil, err
}

// sendPack writes the pack of what req wants and the client, having
// common, lacks: through sideband 1 (progress on 2) when asked.
func (r *repoh) sendPack(ctx context.Context, req *fetchRequest, common []plumbing.Hash, out *bufio.Writer) error {
	progress := band(out, req.caps, bandProgress)
	if req.caps["no-progress"] {
		progress = nil
	}
	objs, err := r.objectsToSend(ctx, req, common)
	if err != nil {
		if eb := band(out, req.caps, bandError); eb != nil {
			fmt.Fprintf(eb, "upload-pack: %v\n", err)
			_ = out.Flush()
		}
		return err
	}
	if progress != nil {
		fmt.Fprintf(progress, "Enumerating objects: %d, done.\n", len(objs))
	}
	var data io.Writer = out
	if bw := band(out, req.caps, bandData); bw != nil {
		data = bw
	}
	// The encoder writes object by object; a buffer of a full packet
	// keeps the sideband packets large.
	buf := bufio.NewWriterSize(data, maxPkt-5)
	enc := packfile.NewEncoder(buf, r.st, !req.caps["ofs-delta"])
	window := uint(packWindow)
	if len(objs) > deltaMaxObjects {
		window = 0
	}
	if _, err := enc.Encode(objs, window); err != nil {
		return fmt.Errorf("encode pack: %w", err)
	}
	if err := buf.Flush(); err != nil {
		return err
	}
	if band(out, req.caps, bandData) != nil {
		if _, err := io.WriteString(out, "0000"); err != nil {
			return err
		}
	}
	return out.Flush()
}

// objectsToSend lists the objects reachable from the wants but not from
// the common commits: the commits down to the common history, and the
// trees and blobs of those commits that the boundary commits (common
// parents) do not have. An object the client has elsewhere may be sent
// again, which costs bytes, never correctness. With include-tag,
// annotated tags pointing into the pack come too.
func (r *repoh) objectsToSend(ctx context.Context, req *fetchRequest, common []plumbing.Hash) ([]plumbing.Hash, error) {
	have, err := r.ancestors(ctx, common)
	if err != nil {
		return nil, err
	}
	send := map[plumbing.Hash]bool{}
	var out []plumbing.Hash
	add := func(h plumbing.Hash) bool {
		if send[h] {
			return false
		}
		send[h] = true
		out = append(out, h)
		return true
	}
	// Peel the wants: tags are sent, their targets walked.
	var commits, others []plumbing.Hash
	for _, h := range req.wants {
		for range 16 {
			typ, data, err := r.raw(h, plumbing.AnyObject)
			if err != nil {
				return nil, fmt.Errorf("want: %w", err)
			}
			if typ != plumbing.TagObject {
				if typ == plumbing.CommitObject {
					commits = append(commits, h)
				} else {
					others = append(others, h)
				}
				break
			}
			add(h)
			if h, err = tagTarget(h, data); err != nil {
				return nil, err
			}
		}
	}
	// Commits down to the common history.
	var walked []plumbing.Hash // their trees
	boundary := map[plumbing.Hash]bool{}
	stack := append([]plumbing.Hash(nil), commits...)
	for len(stack) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if have[h] {
			boundary[h] = true
			continue
		}
		if send[h] {
			continue
		}
		tree, parents, err := r.commit(h)
		if err != nil {
			return nil, err
		}
		add(h)
		walked = append(walked, tree)
		stack = append(stack, parents...)
	}
	// What the boundary commits hold the client has.
	skip := map[plumbing.Hash]bool{}
	for h := range boundary {
		tree, _, err := r.commit(h)
		if err != nil {
			return nil, err
		}
		if err := r.walkTree(ctx, tree, func(h plumbing.Hash) bool {
			if skip[h] {
				return false
			}
			skip[h] = true
			return true
		}); err != nil {
			return nil, err
		}
	}
	visit := func(h plumbing.Hash) bool { return !skip[h] && add(h) }
	for _, tree := range walked {
		if err := r.walkTree(ctx, tree, visit); err != nil {
			return nil, err
		}
	}
	for _, h := range others {
		o, err := r.st.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return nil, fmt.Errorf("want %s: %w", h, err)
		}
		if o.Type() == plumbing.TreeObject {
			if err := r.walkTree(ctx, h, visit); err != nil {
				return nil, err
			}
		} else {
			visit(h)
		}
	}
	if req.caps["include-tag"] {
		tags, err := listRefs(r.dir, "refs/tags/")
		if err != nil {
			return nil, err
		}
		for _, t := range tags {
			h := plumbing.NewHash(t.oid)
			if send[h] {
				continue
			}
			if target, ok := r.peelTag(h); ok && send[target] {
				// The chain of tags from the ref to the target.
				for range 16 {
					typ, data, err := r.raw(h, plumbing.AnyObject)
					if err != nil || typ != plumbing.TagObject {
						break
					}
					add(h)
					if h, err = tagTarget(h, data); err != nil {
						break
					}
				}
			}
		}
	}
	return out, nil
}

// ancestors is every commit reachable from the given ones.
func (r *repoh) ancestors(ctx context.Context, from []plumbing.Hash) (map[plumbing.Hash]bool, error) {
	seen := map[plumbing.Hash]bool{}
	stack := append([]plumbing.Hash(nil), from...)
	for len(stack) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[h] {
			continue
		}
		_, parents, err := r.commit(h)
		if err != nil {
			return nil, err
		}
		seen[h] = true
		stack = append(stack, parents...)
	}
	return seen, nil
}

// walkTree calls visit with tree and, depth first, every tree and blob
// under it (submodule commits aside); visit returning false prunes.
func (r *repoh) walkTree(ctx context.Context, tree plumbing.Hash, visit func(plumbing.Hash) bool) error {
	if !visit(tree) {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	_, data, err := r.raw(tree, plumbing.TreeObject)
	if err != nil {
		return err
	}
	entries, err := treeLinks(tree, data)
	if err != nil {
		return err
	}
	for _, e := range entries {
		switch {
		case e.gitlink:
		case e.dir:
			if err := r.walkTree(ctx, e.id, visit); err != nil {
				return err
			}
		default:
			visit(e.id)
		}
	}
	return nil
}

// commit reads the tree and parents of commit h.
func (r *repoh) commit(h plumbing.Hash) (plumbing.Hash, []plumbing.Hash, error) {
	_, data, err := r.raw(h, plumbing.CommitObject)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	return commitLinks(h, data)
}
