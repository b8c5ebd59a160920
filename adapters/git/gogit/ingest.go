package gogit

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"

	"github.com/hearth-forge/hearth/adapters/git/gitdisk"
)

// packRefusal is a pushed pack refused for what it is (too big, broken,
// thin): the client is told msg, which is not a server failure.
type packRefusal struct{ msg string }

func (e *packRefusal) Error() string { return "pushed pack refused: " + e.msg }

func refuse(format string, args ...any) error {
	return &packRefusal{msg: fmt.Sprintf(format, args...)}
}

// ingested is a pushed pack in quarantine: checked, indexed and fsynced
// in a directory of its own beside objects (nothing is ever created and
// removed in objects/pack: go-git fails to list a directory whose
// entries vanish under it), readable through q until install links it
// into objects/pack, or close drops it.
type ingested struct {
	dir, qdir, tmp string
	f              billy.File
	idx            []byte
	sum            plumbing.Hash
	ids            []plumbing.Hash
	q              *packfile.Packfile
}

// install links the index, then the pack, into objects/pack under git's
// names (readers find packs by their .pack, or skip an index whose pack
// is missing) and syncs the directory. An identical pack already there
// (another push of the same objects) is kept as it is.
func (p *ingested) install() error {
	base := filepath.Join(p.dir, "pack-"+p.sum.String())
	idx := filepath.Join(p.qdir, "pack.idx")
	if err := writeFileSync(p.qdir, idx, p.idx, 0o444); err != nil {
		return err
	}
	if err := os.Link(idx, base+".idx"); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if err := os.Link(p.tmp, base+".pack"); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return gitdisk.Sync(p.dir)
}

// close drops the quarantine (the pack stays if install linked it).
func (p *ingested) close() {
	if p == nil {
		return
	}
	p.f.Close()
	_ = os.RemoveAll(p.qdir)
}

// packReader reads the pushed pack from br byte-exactly (nothing past
// its trailer, which over SSH is followed by nothing until the server
// answers), copying what it reads to w and hashing it, within max bytes.
type packReader struct {
	br      *bufio.Reader
	w       *bufio.Writer
	h       hash.Hash
	hashing bool
	n, max  int64
}

func (p *packReader) Read(b []byte) (int, error) {
	if p.n >= p.max {
		return 0, refuse("pack exceeds the maximum size of %d bytes", p.max)
	}
	if int64(len(b)) > p.max-p.n {
		b = b[:p.max-p.n]
	}
	n, err := p.br.Read(b)
	p.took(b[:n])
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func (p *packReader) ReadByte() (byte, error) {
	if p.n >= p.max {
		return 0, refuse("pack exceeds the maximum size of %d bytes", p.max)
	}
	c, err := p.br.ReadByte()
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, err
	}
	p.took([]byte{c})
	return c, nil
}

func (p *packReader) took(b []byte) {
	p.n += int64(len(b))
	_, _ = p.w.Write(b)
	if p.hashing {
		p.h.Write(b)
	}
}

// ingestPack reads the pack that follows the commands into quarantine:
// streamed to a temporary file (bounded by the limits), checked object by
// object, indexed by go-git, fsynced. A pack of no objects is not kept
// (nil). Thin packs (deltas against objects outside the pack) are
// refused: the advertisement asks for none (no-thin).
func (b *Backend) ingestPack(ctx context.Context, r *repoh, br *bufio.Reader) (_ *ingested, err error) {
	dir := filepath.Join(r.dir, "objects", "pack")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	qdir, err := os.MkdirTemp(r.dir, "incoming-")
	if err != nil {
		return nil, err
	}
	tmp := filepath.Join(qdir, "pack.pack")
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		_ = os.RemoveAll(qdir)
		return nil, err
	}
	defer func() {
		f.Close()
		if err != nil {
			_ = os.RemoveAll(qdir)
		}
	}()
	pr := &packReader{br: br, w: bufio.NewWriterSize(f, 64<<10), h: sha1.New(), hashing: true, max: b.limits.MaxPackBytes}
	count, err := b.copyPack(ctx, pr)
	if err != nil {
		var refusal *packRefusal
		if errors.As(err, &refusal) {
			return nil, err
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, refuse("pack is truncated")
		}
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, refuse("bad pack: %v", err)
	}
	if count == 0 {
		_ = os.RemoveAll(qdir)
		return nil, nil
	}
	if err := pr.w.Flush(); err != nil {
		return nil, err
	}
	if err := f.Sync(); err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	iw := new(idxfile.Writer)
	parser, err := packfile.NewParser(packfile.NewScanner(f), iw)
	if err != nil {
		return nil, err
	}
	sum, err := parser.Parse()
	if errors.Is(err, packfile.ErrReferenceDeltaNotFound) {
		return nil, refuse("thin packs are not accepted by the gogit backend")
	}
	if err != nil {
		return nil, refuse("bad pack: %v", err)
	}
	idx, err := iw.Index()
	if err != nil {
		return nil, err
	}
	var ibuf bytes.Buffer
	if _, err := idxfile.NewEncoder(&ibuf).Encode(idx); err != nil {
		return nil, err
	}
	if err := os.Chmod(tmp, 0o444); err != nil {
		return nil, err
	}
	pk := &ingested{dir: dir, qdir: qdir, tmp: tmp, idx: ibuf.Bytes(), sum: sum}
	iter, err := idx.Entries()
	if err != nil {
		return nil, err
	}
	for {
		e, err := iter.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		pk.ids = append(pk.ids, e.Hash)
	}
	fsys := osfs.New(qdir, osfs.WithBoundOS())
	if pk.f, err = fsys.Open(filepath.Base(tmp)); err != nil {
		return nil, err
	}
	pk.q = packfile.NewPackfile(idx, fsys, pk.f, 0)
	return pk, nil
}

// copyPack reads a whole pack through pr (header, every object, the
// trailer) and returns its object count. Each object's data is inflated
// to find its end, so nothing past the pack is read.
func (b *Backend) copyPack(ctx context.Context, pr *packReader) (uint32, error) {
	var hdr [12]byte
	if _, err := io.ReadFull(pr, hdr[:]); err != nil {
		return 0, err
	}
	if string(hdr[:4]) != "PACK" {
		return 0, refuse("not a pack")
	}
	if v := binary.BigEndian.Uint32(hdr[4:8]); v != 2 && v != 3 {
		return 0, refuse("pack version %d is not supported", v)
	}
	count := binary.BigEndian.Uint32(hdr[8:12])
	if int64(count) > int64(b.limits.MaxPackObjects) {
		return 0, refuse("pack of %d objects exceeds the maximum of %d", count, b.limits.MaxPackObjects)
	}
	var zr io.ReadCloser
	for i := uint32(0); i < count; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		c, err := pr.ReadByte()
		if err != nil {
			return 0, err
		}
		typ := (c >> 4) & 7
		for shift := 0; c&0x80 != 0; shift += 7 {
			if shift > 56 {
				return 0, refuse("object %d: bad size", i)
			}
			if c, err = pr.ReadByte(); err != nil {
				return 0, err
			}
		}
		switch typ {
		case 1, 2, 3, 4:
		case 6: // ofs-delta: the base's offset, a varint
			for n := 0; ; n++ {
				if n > 9 {
					return 0, refuse("object %d: bad delta offset", i)
				}
				if c, err = pr.ReadByte(); err != nil {
					return 0, err
				}
				if c&0x80 == 0 {
					break
				}
			}
		case 7: // ref-delta: the base's name
			var base [20]byte
			if _, err := io.ReadFull(pr, base[:]); err != nil {
				return 0, err
			}
		default:
			return 0, refuse("object %d: bad type %d", i, typ)
		}
		if zr == nil {
			if zr, err = zlib.NewReader(pr); err != nil {
				return 0, err
			}
		} else if err := zr.(zlib.Resetter).Reset(pr, nil); err != nil {
			return 0, err
		}
		if _, err := io.Copy(io.Discard, zr); err != nil {
			return 0, err
		}
	}
	sum := pr.h.Sum(nil)
	pr.hashing = false
	var trailer [20]byte
	if _, err := io.ReadFull(pr, trailer[:]); err != nil {
		return 0, err
	}
	if !bytes.Equal(sum, trailer[:]) {
		return 0, refuse("pack checksum mismatch")
	}
	return count, nil
}

// connected checks that every object the new pack's objects point to
// is there (in the pack or the repository): the first missing one, ""
// when none. Objects already in the repository are taken as complete.
func (r *repoh) connected(ctx context.Context, pk *ingested) (string, error) {
	in := make(map[plumbing.Hash]bool, len(pk.ids))
	for _, h := range pk.ids {
		in[h] = true
	}
	present := func(h plumbing.Hash) (bool, error) {
		if in[h] {
			return true, nil
		}
		ok, err := r.has(h)
		if ok {
			in[h] = true
		}
		return ok, err
	}
	for i, h := range pk.ids {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return "", err
			}
		}
		o, err := r.object(plumbing.AnyObject, h)
		if err != nil {
			return "", fmt.Errorf("read pushed object %s: %w", h, err)
		}
		var links []plumbing.Hash
		switch o.Type() {
		case plumbing.CommitObject:
			_, data, err := r.raw(h, plumbing.CommitObject)
			if err != nil {
				return "", err
			}
			tree, parents, err := commitLinks(h, data)
			if err != nil {
				return h.String(), nil
			}
			links = append(parents, tree)
		case plumbing.TreeObject:
			_, data, err := r.raw(h, plumbing.TreeObject)
			if err != nil {
				return "", err
			}
			entries, err := treeLinks(h, data)
			if err != nil {
				return h.String(), nil
			}
			for _, e := range entries {
				if !e.gitlink {
					links = append(links, e.id)
				}
			}
		case plumbing.TagObject:
			_, data, err := r.raw(h, plumbing.TagObject)
			if err != nil {
				return "", err
			}
			target, err := tagTarget(h, data)
			if err != nil {
				return h.String(), nil
			}
			links = append(links, target)
		}
		for _, l := range links {
			ok, err := present(l)
			if err != nil {
				return "", err
			}
			if !ok {
				return l.String(), nil
			}
		}
	}
	return "", nil
}
