package repository

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// Git's pkt-line wire format, as far as the push checks need it: the
// command list at the start of a receive-pack request and the answer that
// refuses a push.

// maxCommandBytes caps the command list at the start of a push.
const maxCommandBytes = 16 << 20

// PushRequest is the start of a receive-pack request, as the handler
// decodes it: the commands, the client's capabilities, and the raw bytes
// read (replayed to git).
type PushRequest struct {
	commands []domain.RefUpdate
	caps     map[string]bool
	raw      []byte
}

// readPushCommands reads the pkt-lines up to the first flush: optional
// "shallow <id>" lines, then "<old> <new> <ref>" commands, the first with
// the capabilities after a NUL. Malformed input is core.ErrInvalid, a
// command list over maxCommandBytes core.ErrTooLarge; a core error from rd
// is returned as it is.
func readPushCommands(rd io.Reader) (PushRequest, error) {
	out := PushRequest{caps: map[string]bool{}}
	var raw bytes.Buffer
	first := true
	for {
		var hdr [4]byte
		if _, err := io.ReadFull(rd, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) && raw.Len() == 0 {
				return out, core.BadRequest("empty push request")
			}
			return out, wrapBodyErr(err, "push request: truncated command list")
		}
		raw.Write(hdr[:])
		n, err := strconv.ParseUint(string(hdr[:]), 16, 16)
		if err != nil {
			return out, core.BadRequest("push request: bad pkt-line length")
		}
		if n == 0 {
			break
		}
		if n < 4 {
			return out, core.BadRequest("push request: unexpected special packet")
		}
		if raw.Len()+int(n) > maxCommandBytes {
			return out, &core.Error{Kind: core.ErrTooLarge, Msg: "413 push command list too large"}
		}
		line := make([]byte, n-4)
		if _, err := io.ReadFull(rd, line); err != nil {
			return out, wrapBodyErr(err, "push request: truncated command list")
		}
		raw.Write(line)
		text := strings.TrimSuffix(string(line), "\n")
		if first {
			if cmd, caps, ok := strings.Cut(text, "\x00"); ok {
				text = cmd
				for _, c := range strings.Fields(caps) {
					out.caps[c] = true
				}
			}
		}
		if strings.HasPrefix(text, "shallow ") {
			continue
		}
		first = false
		f := strings.Split(text, " ")
		if len(f) != 3 || !isObjectID(f[0]) || !isObjectID(f[1]) || f[2] == "" {
			return out, core.BadRequest("push request: malformed command")
		}
		u := domain.RefUpdate{Ref: f[2], OldID: f[0], NewID: f[1]}
		u.FastForward = u.OldID == domain.ZeroID && u.NewID != domain.ZeroID
		out.commands = append(out.commands, u)
	}
	out.raw = raw.Bytes()
	return out, nil
}

// wrapBodyErr keeps a core error of the body (too large) and makes any
// other read failure a 400 saying msg.
func wrapBodyErr(err error, msg string) error {
	var ce *core.Error
	if errors.As(err, &ce) {
		return err
	}
	return &core.Error{Kind: core.ErrInvalid, Msg: msg, Err: err}
}

func isObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// rejection builds the receive-pack answer refusing every command of push:
// msg on the progress side band (git prints it as "remote: ...") and a
// report-status rejecting each command, as far as the client's
// capabilities allow.
func rejection(push PushRequest, msg string) []byte {
	var report bytes.Buffer
	if push.caps["report-status"] || push.caps["report-status-v2"] {
		writePkt(&report, "unpack ok\n")
		for _, c := range push.commands {
			writePkt(&report, "ng "+c.Ref+" pre-receive hook declined\n")
		}
		report.WriteString("0000")
	}
	band := 0 // payload bytes per side-band packet
	switch {
	case push.caps["side-band-64k"]:
		band = 65515
	case push.caps["side-band"]:
		band = 995
	}
	if band == 0 {
		return report.Bytes()
	}
	var out bytes.Buffer
	text := []byte(msg + "\n")
	for len(text) > 0 {
		n := min(len(text), band)
		writePkt(&out, "\x02"+string(text[:n]))
		text = text[n:]
	}
	rep := report.Bytes()
	for len(rep) > 0 {
		n := min(len(rep), band)
		writePkt(&out, "\x01"+string(rep[:n]))
		rep = rep[n:]
	}
	out.WriteString("0000")
	return out.Bytes()
}

// writePkt writes one pkt-line holding payload.
func writePkt(b *bytes.Buffer, payload string) {
	fmt.Fprintf(b, "%04x", len(payload)+4)
	b.WriteString(payload)
}
