package gogit

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/adapters/git/gitinput"
	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// command is one ref update a client pushes, and what became of it.
type command struct {
	old, new, ref string
	ng            string // the refusal, "" when accepted
}

// ReceivePack runs one git-receive-pack request: the commands, then the
// pack, which is checked (size and count bounds, every delta resolved
// inside it, every object it points to present) and stored durably
// before verify (when not nil) is called with every update; a verify
// error refuses the whole push and removes the pack. Each ref then moves
// by compare-and-swap; a ref that moved meanwhile is refused alone. The
// client gets git's report: "unpack ok" and "ok"/"ng" per ref, and
// verify's message on the progress channel ("remote: ...").
func (b *Backend) ReceivePack(ctx context.Context, repo, protocol string, in io.Reader, w io.Writer, verify ports.PushCheck) error {
	if err := check.Transport("git-receive-pack", protocol); err != nil {
		return err
	}
	r, err := b.open(repo)
	if err != nil {
		return err
	}
	br := bufio.NewReaderSize(in, 64<<10)
	cmds, caps, err := readCommands(br)
	if err != nil {
		return fmt.Errorf("gogit: receive-pack on %s: %w", repo, err)
	}
	if len(cmds) == 0 {
		return nil
	}
	var pk *ingested
	if needsPack(cmds) {
		pk, err = b.ingestPack(ctx, r, br)
		var refusal *packRefusal
		if errors.As(err, &refusal) {
			for i := range cmds {
				cmds[i].ng = "unpacker error"
			}
			b.log.Info("gogit: pushed pack refused")
			return writeReport(w, caps, "unpack "+gitinput.OneLine(refusal.msg), cmds, "")
		}
		if err != nil {
			return fmt.Errorf("gogit: receive-pack on %s: %w", repo, err)
		}
	}
	defer pk.close()
	r = openBulk(r.dir)
	defer r.st.Close()
	if pk != nil {
		// The pushed objects are read from quarantine until the push
		// is accepted.
		r.q = pk.q
		if missing, err := r.connected(ctx, pk); err != nil {
			return fmt.Errorf("gogit: receive-pack on %s: %w", repo, err)
		} else if missing != "" {
			b.log.Info("gogit: push refused: an object is missing", zap.String("object", missing))
			for i := range cmds {
				cmds[i].ng = "missing necessary objects"
			}
			return writeReport(w, caps, "unpack ok", cmds, "")
		}
	}
	var updates []domain.RefUpdate
	var valid []*command
	for i := range cmds {
		c := &cmds[i]
		if c.ng = r.vetCommand(*c); c.ng != "" {
			continue
		}
		valid = append(valid, c)
		updates = append(updates, domain.RefUpdate{Ref: c.ref, OldID: c.old, NewID: c.new, FastForward: r.fastForward(ctx, c.old, c.new)})
	}
	if verify != nil && len(valid) > 0 {
		if err := verify(ctx, updates); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("gogit: receive-pack on %s: check: %w", repo, err)
			}
			for _, c := range valid {
				c.ng = "pre-receive hook declined"
			}
			return writeReport(w, caps, "unpack ok", cmds, gitinput.Refusal(err))
		}
	}
	if pk != nil && len(valid) > 0 {
		// Objects durable before any ref moves. A push that then loses
		// every ref to a concurrent one leaves its pack behind: removing
		// a pack under concurrent readers is not safe for go-git.
		if err := r.store(pk); err != nil {
			return fmt.Errorf("gogit: receive-pack on %s: store pack: %w", repo, err)
		}
	}
	for _, c := range valid {
		switch err := casRef(r.dir, c.ref, c.new, c.old); {
		case err == nil:
		case errors.Is(err, core.ErrStale):
			c.ng = "failed to update ref"
		case errors.Is(err, core.ErrConflict):
			c.ng = "failed to lock"
		default:
			b.log.Warn("gogit: push: update ref", zap.Error(err))
			c.ng = "failed to update ref"
		}
	}
	return writeReport(w, caps, "unpack ok", cmds, "")
}

// unpackLimit is git's receive.unpackLimit: a push of fewer objects is
// stored as loose objects rather than as a pack of its own, so that
// packs (every reader loads every pack's index) do not pile up.
const unpackLimit = 100

// store makes the quarantined objects part of the repository, durably.
func (r *repoh) store(pk *ingested) error {
	if len(pk.ids) >= unpackLimit {
		return pk.install()
	}
	for _, h := range pk.ids {
		typ, data, err := r.raw(h, plumbing.AnyObject)
		if err != nil {
			return err
		}
		if _, err := r.write(typ.String(), data); err != nil {
			return err
		}
	}
	return nil
}

// readCommands reads the command list up to its flush: "<old> <new>
// <ref>", the client's capabilities after a NUL on the first line.
// Shallow lines (a shallow client's boundary) are ignored; a push
// certificate is refused.
func readCommands(br *bufio.Reader) ([]command, map[string]bool, error) {
	caps := map[string]bool{}
	var cmds []command
	for {
		line, err := readPkt(br)
		if errors.Is(err, errFlush) {
			return cmds, caps, nil
		}
		if errors.Is(err, io.EOF) && len(cmds) == 0 {
			return nil, caps, nil
		}
		if err != nil {
			return nil, nil, err
		}
		s := string(line)
		if len(cmds) == 0 {
			var capList string
			s, capList, _ = strings.Cut(s, "\x00")
			for _, c := range strings.Fields(capList) {
				caps[c] = true
			}
		}
		s = strings.TrimSuffix(s, "\n")
		if strings.HasPrefix(s, "shallow ") {
			continue
		}
		if strings.HasPrefix(s, "push-cert") {
			return nil, nil, core.NotAllowed("the gogit backend cannot take signed pushes")
		}
		f := strings.SplitN(s, " ", 3)
		if len(f) != 3 || !gitnames.IsOID(f[0]) || !gitnames.IsOID(f[1]) {
			return nil, nil, core.BadRequest(fmt.Sprintf("gogit: bad push command %q", s))
		}
		cmds = append(cmds, command{old: f[0], new: f[1], ref: f[2]})
	}
}

// needsPack reports whether a pack follows the commands (git sends none
// when every command is a deletion).
func needsPack(cmds []command) bool {
	for _, c := range cmds {
		if c.new != domain.ZeroID {
			return true
		}
	}
	return false
}

// vetCommand is git receive-pack's own refusal of c, "" when none.
func (r *repoh) vetCommand(c command) string {
	if gitnames.CheckFullRef(c.ref) != nil || !strings.HasPrefix(c.ref, "refs/") {
		return "funny refname"
	}
	if c.new == domain.ZeroID {
		return ""
	}
	o, err := r.object(plumbing.AnyObject, plumbing.NewHash(c.new))
	if err != nil {
		return "missing necessary objects"
	}
	if strings.HasPrefix(c.ref, domain.BranchPrefix) && o.Type() != plumbing.CommitObject {
		return "non-commit object on a branch"
	}
	return ""
}

// fastForward reports whether new descends from old (both commits).
func (r *repoh) fastForward(ctx context.Context, old, new string) bool {
	if new == domain.ZeroID {
		return false
	}
	if old == domain.ZeroID {
		return true
	}
	for _, id := range []string{old, new} {
		if o, err := r.object(plumbing.AnyObject, plumbing.NewHash(id)); err != nil || o.Type() != plumbing.CommitObject {
			return false
		}
	}
	ok, err := r.reaches(ctx, &commitCache{r: r}, new, old)
	return err == nil && ok
}

// writeReport answers a push: with report-status the unpack result and
// one line per ref, inside sideband 1 when the client asked for a
// sideband, msg (if any) on sideband 2 first.
func writeReport(w io.Writer, caps map[string]bool, unpack string, cmds []command, msg string) error {
	out := bufio.NewWriter(w)
	if msg != "" {
		if pb := band(out, caps, bandProgress); pb != nil {
			fmt.Fprintf(pb, "%s\n", msg)
		} else {
			// Without a sideband the refusal itself must say why.
			for i := range cmds {
				if cmds[i].ng == "pre-receive hook declined" {
					cmds[i].ng = msg
				}
			}
		}
	}
	if caps["report-status"] {
		var rep bytes.Buffer
		p := &pktWriter{w: &rep}
		p.line(unpack + "\n")
		for _, c := range cmds {
			if c.ng == "" {
				p.line("ok " + c.ref + "\n")
			} else {
				p.line("ng " + c.ref + " " + c.ng + "\n")
			}
		}
		p.flush()
		if db := band(out, caps, bandData); db != nil {
			if _, err := db.Write(rep.Bytes()); err != nil {
				return err
			}
		} else if _, err := out.Write(rep.Bytes()); err != nil {
			return err
		}
	}
	if band(out, caps, bandData) != nil {
		if _, err := io.WriteString(out, "0000"); err != nil {
			return err
		}
	}
	return out.Flush()
}
