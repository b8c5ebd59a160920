// Package sshkey parses OpenSSH public keys with GitLab 9.x's rules: the
// accepted types, minimum sizes and the MD5 fingerprint. Users' keys,
// deploy keys and the SSH server share it; it uses only the standard
// library.
package sshkey

import (
	"crypto/ecdh"
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// Key limits, as GitLab 9.x validates them.
const (
	MaxKeyLength = 5000 // characters of the key text
	MinRSABits   = 1024
	MaxRSABits   = 16384
	MinDSABits   = 1024
)

// ErrInvalid is any key that is not a well-formed OpenSSH public key.
var ErrInvalid = errors.New("invalid public key")

// TooSmallError is a well-formed key below the size GitLab accepts; its
// message is GitLab's ("must be at least 1024 bits").
type TooSmallError struct{ Min int }

func (e *TooSmallError) Error() string { return fmt.Sprintf("must be at least %d bits", e.Min) }

// PublicKey is a parsed OpenSSH public key in authorized_keys form.
type PublicKey struct {
	// Type is the declared and embedded algorithm, e.g. "ssh-ed25519".
	Type string
	// Blob is the decoded wire-format key.
	Blob []byte
	// Comment is whatever followed the base64 part, possibly empty.
	Comment string
	// Bits is the key size: the RSA modulus, the DSA prime, the curve size.
	Bits int
}

// Fingerprint is GitLab 9.x's fingerprint: MD5 of the blob as colon-separated hex.
func (k *PublicKey) Fingerprint() string { return Fingerprint(k.Blob) }

// Fingerprint is GitLab 9.x's fingerprint of a key in SSH wire format
// (what an SSH server is offered): MD5 of the blob as colon-separated hex.
func Fingerprint(blob []byte) string {
	sum := md5.Sum(blob)
	h := hex.EncodeToString(sum[:])
	var b strings.Builder
	for i := 0; i < len(h); i += 2 {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(h[i : i+2])
	}
	return b.String()
}

// String is the normalized key text: "type base64 [comment]".
func (k *PublicKey) String() string {
	s := k.Type + " " + base64.StdEncoding.EncodeToString(k.Blob)
	if k.Comment != "" {
		s += " " + k.Comment
	}
	return s
}

// Normalize removes line breaks (keys pasted from a terminal wrap) and
// surrounding space, as GitLab does before validating.
func Normalize(text string) string {
	text = strings.NewReplacer("\r", "", "\n", "").Replace(text)
	return strings.TrimSpace(text)
}

// Parse parses one OpenSSH public key line: type, base64 blob and
// an optional comment. The blob must decode, carry the declared type, and
// hold a well-formed key of that type: RSA moduli of at least 1024 bits,
// ECDSA points on their curve, 32-byte Ed25519 keys. Certificates and
// authorized_keys options are not accepted. It uses only the standard library.
func Parse(text string) (*PublicKey, error) {
	text = Normalize(text)
	if text == "" || len(text) > MaxKeyLength {
		return nil, ErrInvalid
	}
	fields := strings.Fields(text)
	if len(fields) < 2 {
		return nil, ErrInvalid
	}
	typ, b64 := fields[0], fields[1]
	comment := strings.Join(fields[2:], " ")
	blob, err := base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil {
		if blob, err = base64.RawStdEncoding.Strict().DecodeString(b64); err != nil {
			return nil, ErrInvalid
		}
	}
	r := &wire{b: blob}
	embedded, ok := r.str()
	if !ok || string(embedded) != typ {
		return nil, ErrInvalid
	}
	k := &PublicKey{Type: typ, Blob: blob, Comment: comment}
	switch typ {
	case "ssh-rsa":
		e, ok1 := r.mpint()
		n, ok2 := r.mpint()
		if !ok1 || !ok2 || e.Sign() <= 0 || e.Bit(0) == 0 || e.Cmp(big.NewInt(3)) < 0 || n.Sign() <= 0 || n.Bit(0) == 0 {
			return nil, ErrInvalid
		}
		k.Bits = n.BitLen()
		if k.Bits > MaxRSABits {
			return nil, ErrInvalid
		}
		if k.Bits < MinRSABits {
			return nil, &TooSmallError{Min: MinRSABits}
		}
	case "ssh-dss":
		var parts [4]*big.Int
		for i := range parts {
			v, ok := r.mpint()
			if !ok || v.Sign() <= 0 {
				return nil, ErrInvalid
			}
			parts[i] = v
		}
		k.Bits = parts[0].BitLen()
		if k.Bits > MaxRSABits {
			return nil, ErrInvalid
		}
		if k.Bits < MinDSABits {
			return nil, &TooSmallError{Min: MinDSABits}
		}
	case "ssh-ed25519", "sk-ssh-ed25519@openssh.com":
		pub, ok := r.str()
		if !ok || len(pub) != 32 {
			return nil, ErrInvalid
		}
		k.Bits = 256
		if strings.HasPrefix(typ, "sk-") {
			if app, ok := r.str(); !ok || len(app) == 0 {
				return nil, ErrInvalid
			}
		}
	case "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "sk-ecdsa-sha2-nistp256@openssh.com":
		want := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(typ, "sk-"), "ecdsa-sha2-"), "@openssh.com")
		curveName, ok := r.str()
		if !ok || string(curveName) != want {
			return nil, ErrInvalid
		}
		point, ok := r.str()
		if !ok {
			return nil, ErrInvalid
		}
		curve, bits := ecdhCurve(want)
		// NewPublicKey accepts only an uncompressed point on the curve.
		if _, err := curve.NewPublicKey(point); err != nil {
			return nil, ErrInvalid
		}
		k.Bits = bits
		if strings.HasPrefix(typ, "sk-") {
			if app, ok := r.str(); !ok || len(app) == 0 {
				return nil, ErrInvalid
			}
		}
	default:
		return nil, ErrInvalid
	}
	if len(r.b) != 0 {
		return nil, ErrInvalid // trailing bytes
	}
	return k, nil
}

func ecdhCurve(name string) (ecdh.Curve, int) {
	switch name {
	case "nistp384":
		return ecdh.P384(), 384
	case "nistp521":
		return ecdh.P521(), 521
	}
	return ecdh.P256(), 256
}

// wire reads the SSH wire format (RFC 4251 section 5).
type wire struct{ b []byte }

func (w *wire) str() ([]byte, bool) {
	if len(w.b) < 4 {
		return nil, false
	}
	n := binary.BigEndian.Uint32(w.b)
	if uint64(n) > uint64(len(w.b)-4) {
		return nil, false
	}
	s := w.b[4 : 4+n]
	w.b = w.b[4+n:]
	return s, true
}

// mpint reads a non-negative multiple-precision integer; negative values
// (the sign bit set without a leading zero byte) are rejected.
func (w *wire) mpint() (*big.Int, bool) {
	s, ok := w.str()
	if !ok {
		return nil, false
	}
	if len(s) > 0 && s[0]&0x80 != 0 {
		return nil, false
	}
	return new(big.Int).SetBytes(s), true
}

// Check parses text as a key to store and returns GitLab 9.x's validation
// messages by field when it may not be stored: too long, too small, or not
// a well-formed key ({"key": ["is invalid"], "fingerprint": ["cannot be
// generated"]}). The messages are nil when the key is fine.
func Check(text string) (*PublicKey, map[string][]string) {
	if len(Normalize(text)) > MaxKeyLength {
		return nil, map[string][]string{"key": {fmt.Sprintf("is too long (maximum is %d characters)", MaxKeyLength)}}
	}
	k, err := Parse(text)
	var small *TooSmallError
	switch {
	case errors.As(err, &small):
		return nil, map[string][]string{"key": {small.Error()}}
	case err != nil:
		return nil, map[string][]string{"key": {"is invalid"}, "fingerprint": {"cannot be generated"}}
	}
	return k, nil
}
