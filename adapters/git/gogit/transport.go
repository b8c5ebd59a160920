package gogit

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// The backend speaks git's protocol v0/v1 only. A client asking for
// version 2 (Git-Protocol / GIT_PROTOCOL) gets a v0 answer, which git
// accepts: the server side of v2 is optional for it.

var (
	_ ports.CheckedReceiver  = (*Backend)(nil)
	_ ports.SessionTransport = (*Backend)(nil)
)

// uploadCaps are offered by upload-pack. Not offered, so git does not
// ask: shallow (git then says "Server does not support shallow
// clients"), filter (git warns and fetches everything), thin-pack
// (packs sent are always complete).
const uploadCaps = "multi_ack_detailed side-band-64k side-band ofs-delta include-tag no-progress allow-tip-sha1-in-want allow-reachable-sha1-in-want"

// receiveCaps are offered by receive-pack; no-thin asks git to push
// self-contained packs (see ingestPack).
const receiveCaps = "report-status delete-refs side-band-64k quiet ofs-delta no-thin"

// AdvertiseRefs writes service's ref advertisement (protocol v0).
func (b *Backend) AdvertiseRefs(ctx context.Context, repo, service, protocol string, w io.Writer) error {
	if err := check.Transport(service, protocol); err != nil {
		return err
	}
	r, err := b.open(repo)
	if err != nil {
		return err
	}
	if err := r.advertise(service, w); err != nil {
		return fmt.Errorf("gogit: advertise %s of %s: %w", service, repo, err)
	}
	return nil
}

// ServeRPC runs one stateless request of service.
func (b *Backend) ServeRPC(ctx context.Context, repo, service, protocol string, in io.Reader, w io.Writer) error {
	if err := check.Transport(service, protocol); err != nil {
		return err
	}
	if service == "git-receive-pack" {
		return b.ReceivePack(ctx, repo, protocol, in, w, nil)
	}
	r, err := b.open(repo)
	if err != nil {
		return err
	}
	r = openBulk(r.dir)
	defer r.st.Close()
	if err := r.uploadPack(ctx, bufio.NewReaderSize(in, 64<<10), w, true); err != nil {
		return fmt.Errorf("gogit: upload-pack on %s: %w", repo, err)
	}
	return nil
}

// ServeSession serves git upload-pack over one full-duplex connection
// (SSH): the advertisement, then negotiation rounds until the client
// says done and gets its pack. git-upload-archive is refused.
func (b *Backend) ServeSession(ctx context.Context, repo, service, protocol string, in io.Reader, out io.Writer) error {
	if err := check.Session(service, protocol); err != nil {
		return err
	}
	r, err := b.open(repo)
	if err != nil {
		return err
	}
	if service != "git-upload-pack" {
		return core.NotAllowed("the gogit backend cannot serve " + service + "; download archives through the API or use the gitcli backend")
	}
	r = openBulk(r.dir)
	defer r.st.Close()
	if err := r.advertise(service, out); err != nil {
		return fmt.Errorf("gogit: advertise %s of %s: %w", service, repo, err)
	}
	if err := r.uploadPack(ctx, bufio.NewReaderSize(in, 64<<10), out, false); err != nil {
		return fmt.Errorf("gogit: upload-pack session on %s: %w", repo, err)
	}
	return nil
}

// advertise writes the ref list: HEAD first (upload-pack), then every ref
// by name with the peeled value of annotated tags, capabilities after the
// first; an empty repository advertises "capabilities^{}".
func (r *repoh) advertise(service string, w io.Writer) error {
	refs, err := listRefs(r.dir, "refs/")
	if err != nil {
		return err
	}
	caps := receiveCaps
	if service == "git-upload-pack" {
		caps = uploadCaps
		if head, err := gitobject.HeadRef(r.dir); err == nil && head != "" {
			for _, ref := range refs {
				if ref.name == head {
					caps += " symref=HEAD:" + head
					refs = append([]refPair{{"HEAD", ref.oid}}, refs...)
					break
				}
			}
		}
	}
	caps += " " + agent
	bw := bufio.NewWriter(w)
	p := &pktWriter{w: bw}
	if len(refs) == 0 {
		p.line(domain.ZeroID + " capabilities^{}\x00" + caps + "\n")
	}
	for i, ref := range refs {
		if i == 0 {
			p.line(ref.oid + " " + ref.name + "\x00" + caps + "\n")
		} else {
			p.line(ref.oid + " " + ref.name + "\n")
		}
		if service == "git-upload-pack" && strings.HasPrefix(ref.name, "refs/tags/") {
			if peeled, ok := r.peelTag(plumbing.NewHash(ref.oid)); ok {
				p.line(peeled.String() + " " + ref.name + "^{}\n")
			}
		}
	}
	p.flush()
	if p.err != nil {
		return p.err
	}
	return bw.Flush()
}

// peelTag follows annotated tags from h to the first object that is not
// a tag; ok is false when h is no tag (or cannot be read).
func (r *repoh) peelTag(h plumbing.Hash) (plumbing.Hash, bool) {
	peeled := false
	for range 16 {
		if o, err := r.st.EncodedObject(plumbing.AnyObject, h); err != nil || o.Type() != plumbing.TagObject {
			return h, peeled
		}
		_, data, err := r.raw(h, plumbing.TagObject)
		if err != nil {
			return h, false
		}
		if h, err = tagTarget(h, data); err != nil {
			return h, false
		}
		peeled = true
	}
	return h, false
}
