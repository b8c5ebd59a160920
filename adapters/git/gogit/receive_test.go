package gogit_test

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/hearth-forge/hearth/adapters/git/gogit"
	"github.com/hearth-forge/hearth/core/domain"
)

func pkt(s string) string { return fmt.Sprintf("%04x%s", len(s)+4, s) }

// TestReceivePackBounds: a pushed pack past the object or size bound, a
// truncated one and a corrupt one are refused in git's report ("unpack
// ..." and "ng ... unpacker error"), and no ref moves.
func TestReceivePackBounds(t *testing.T) {
	t.Parallel()
	b, err := gogit.New(t.TempDir(), zaptest.NewLogger(t), gogit.WithLimits(gogit.Limits{MaxPackBytes: 4096, MaxPackObjects: 10}))
	if err != nil {
		t.Fatal(err)
	}
	const repo = "projects/1.git"
	if err := b.Create(t.Context(), repo, "main"); err != nil {
		t.Fatal(err)
	}
	header := func(count uint32) []byte {
		h := []byte("PACK\x00\x00\x00\x02\x00\x00\x00\x00")
		binary.BigEndian.PutUint32(h[8:], count)
		return h
	}
	// One blob of 8 KiB of incompressible bytes.
	var big bytes.Buffer
	big.Write(header(1))
	big.Write([]byte{0xb0, 0x80, 0x04}) // blob, size 8192
	zw := zlib.NewWriter(&big)
	noise := make([]byte, 8192)
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(rnd.Uint32())
	}
	zw.Write(noise)
	zw.Close()
	cases := []struct {
		name string
		pack []byte
		want string
	}{
		{"too many objects", header(1 << 30), "exceeds the maximum of 10"},
		{"too big", big.Bytes(), "exceeds the maximum size of 4096 bytes"},
		{"truncated", append(header(1), 0x31), "truncated"},
		{"not a pack", []byte("JUNKJUNKJUNKJUNK"), "not a pack"},
	}
	for _, c := range cases {
		req := pkt(domain.ZeroID+" "+strings.Repeat("1", 40)+" refs/heads/x\x00report-status\n") + "0000" + string(c.pack)
		var out bytes.Buffer
		if err := b.ReceivePack(t.Context(), repo, "", strings.NewReader(req), &out, nil); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := out.String(); !strings.Contains(got, c.want) || !strings.Contains(got, "ng refs/heads/x unpacker error") {
			t.Errorf("%s: report %q, want %q and the ref refused", c.name, got, c.want)
		}
		if _, err := b.Branch(t.Context(), repo, "x"); err == nil {
			t.Errorf("%s: refs/heads/x was created", c.name)
		}
	}
}
