package gogit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/hearth-forge/hearth/core"
)

// agent is what the backend calls itself in capability lists.
const agent = "agent=hearth/gogit"

// Limits bound what one push may bring. A pack past them is refused
// ("unpack ..." in git push's output) and nothing of it is kept.
// Zero fields take the defaults (see DefaultLimits).
type Limits struct {
	// MaxPackBytes bounds the size of a pushed pack.
	MaxPackBytes int64
	// MaxPackObjects bounds the objects a pushed pack may declare.
	MaxPackObjects int
}

// DefaultLimits: 2 GiB and 4 million objects, well above what a normal
// push carries (git's own receive-pack has no limit unless configured),
// and low enough that a hostile client cannot fill the disk unbounded
// or make the indexer allocate for billions of declared objects.
func DefaultLimits() Limits {
	return Limits{MaxPackBytes: 2 << 30, MaxPackObjects: 4 << 20}
}

func (l Limits) orDefault() Limits {
	d := DefaultLimits()
	if l.MaxPackBytes <= 0 {
		l.MaxPackBytes = d.MaxPackBytes
	}
	if l.MaxPackObjects <= 0 {
		l.MaxPackObjects = d.MaxPackObjects
	}
	return l
}

// Option configures New.
type Option func(*Backend)

// WithLimits sets the bounds on pushed packs (zero fields: defaults).
func WithLimits(l Limits) Option {
	return func(b *Backend) { b.limits = l.orDefault() }
}

// maxPkt is the largest pkt-line git sends or accepts.
const maxPkt = 65520

// errFlush is what readPkt returns for a flush packet.
var errFlush = errors.New("flush packet")

// readPkt reads one pkt-line from br, reading no byte past it (the pack
// that may follow is read from the same reader). A flush is errFlush;
// delim and response-end packets (v2) are refused.
func readPkt(br *bufio.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, core.BadRequest("gogit: truncated pkt-line")
		}
		return nil, err
	}
	n, err := strconv.ParseUint(string(hdr[:]), 16, 16)
	if err != nil {
		return nil, core.BadRequest(fmt.Sprintf("gogit: bad pkt-line length %q", hdr[:]))
	}
	switch {
	case n == 0:
		return nil, errFlush
	case n < 4 || n > maxPkt:
		return nil, core.BadRequest(fmt.Sprintf("gogit: bad pkt-line length %d", n))
	}
	buf := make([]byte, n-4)
	if _, err := io.ReadFull(br, buf); err != nil {
		return nil, core.BadRequest("gogit: truncated pkt-line")
	}
	return buf, nil
}

// pktWriter writes pkt-lines, remembering the first error.
type pktWriter struct {
	w   io.Writer
	err error
}

func (p *pktWriter) line(s string) {
	if p.err != nil {
		return
	}
	_, p.err = fmt.Fprintf(p.w, "%04x%s", len(s)+4, s)
}

func (p *pktWriter) flush() {
	if p.err != nil {
		return
	}
	_, p.err = io.WriteString(p.w, "0000")
}

// sideband channels.
const (
	bandData     = 1
	bandProgress = 2
	bandError    = 3
)

// bandWriter writes to one sideband channel, splitting into pkt-lines of
// at most max payload bytes.
type bandWriter struct {
	w   io.Writer
	ch  byte
	max int
}

func (b bandWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		c := min(len(p), b.max)
		if _, err := fmt.Fprintf(b.w, "%04x%c", c+5, b.ch); err != nil {
			return n, err
		}
		if _, err := b.w.Write(p[:c]); err != nil {
			return n, err
		}
		n += c
		p = p[c:]
	}
	return n, nil
}

// band returns a writer for channel ch of w when the client asked for a
// sideband (side-band-64k: big packets, side-band: small), else nil.
func band(w io.Writer, caps map[string]bool, ch byte) io.Writer {
	switch {
	case caps["side-band-64k"]:
		return bandWriter{w: w, ch: ch, max: maxPkt - 5}
	case caps["side-band"]:
		return bandWriter{w: w, ch: ch, max: 1000 - 5}
	}
	return nil
}
