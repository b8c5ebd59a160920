package users

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
	maxKeyLength   = 5000 // characters of the key text
	minRSABits     = 1024
	maxRSABits     = 16384
	minDSABits     = 1024
	maxTitleLength = 255
)

// errInvalidKey is any key that is not a well-formed OpenSSH public key.
var errInvalidKey = errors.New("invalid public key")

// keyTooSmallError is a well-formed key below the size GitLab accepts.
type keyTooSmallError struct{ min int }

func (e *keyTooSmallError) Error() string { return fmt.Sprintf("must be at least %d bits", e.min) }

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
func (k *PublicKey) Fingerprint() string {
	sum := md5.Sum(k.Blob)
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

// NormalizeKey removes line breaks (keys pasted from a terminal wrap) and
// surrounding space, as GitLab does before validating.
func NormalizeKey(text string) string {
	text = strings.NewReplacer("\r", "", "\n", "").Replace(text)
	return strings.TrimSpace(text)
}

// ParsePublicKey parses one OpenSSH public key line: type, base64 blob and
// an optional comment. The blob must decode, carry the declared type, and
// hold a well-formed key of that type: RSA moduli of at least 1024 bits,
// ECDSA points on their curve, 32-byte Ed25519 keys. Certificates and
// authorized_keys options are not accepted. It uses only the standard library.
func ParsePublicKey(text string) (*PublicKey, error) {
	text = NormalizeKey(text)
	if text == "" || len(text) > maxKeyLength {
		return nil, errInvalidKey
	}
	fields := strings.Fields(text)
	if len(fields) < 2 {
		return nil, errInvalidKey
	}
	typ, b64 := fields[0], fields[1]
	comment := strings.Join(fields[2:], " ")
	blob, err := base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil {
		if blob, err = base64.RawStdEncoding.Strict().DecodeString(b64); err != nil {
			return nil, errInvalidKey
		}
	}
	r := &wire{b: blob}
	embedded, ok := r.str()
	if !ok || string(embedded) != typ {
		return nil, errInvalidKey
	}
	k := &PublicKey{Type: typ, Blob: blob, Comment: comment}
	switch typ {
	case "ssh-rsa":
		e, ok1 := r.mpint()
		n, ok2 := r.mpint()
		if !ok1 || !ok2 || e.Sign() <= 0 || e.Bit(0) == 0 || e.Cmp(big.NewInt(3)) < 0 || n.Sign() <= 0 || n.Bit(0) == 0 {
			return nil, errInvalidKey
		}
		k.Bits = n.BitLen()
		if k.Bits > maxRSABits {
			return nil, errInvalidKey
		}
		if k.Bits < minRSABits {
			return nil, &keyTooSmallError{min: minRSABits}
		}
	case "ssh-dss":
		var parts [4]*big.Int
		for i := range parts {
			v, ok := r.mpint()
			if !ok || v.Sign() <= 0 {
				return nil, errInvalidKey
			}
			parts[i] = v
		}
		k.Bits = parts[0].BitLen()
		if k.Bits > maxRSABits {
			return nil, errInvalidKey
		}
		if k.Bits < minDSABits {
			return nil, &keyTooSmallError{min: minDSABits}
		}
	case "ssh-ed25519", "sk-ssh-ed25519@openssh.com":
		pub, ok := r.str()
		if !ok || len(pub) != 32 {
			return nil, errInvalidKey
		}
		k.Bits = 256
		if strings.HasPrefix(typ, "sk-") {
			if app, ok := r.str(); !ok || len(app) == 0 {
				return nil, errInvalidKey
			}
		}
	case "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "sk-ecdsa-sha2-nistp256@openssh.com":
		want := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(typ, "sk-"), "ecdsa-sha2-"), "@openssh.com")
		curveName, ok := r.str()
		if !ok || string(curveName) != want {
			return nil, errInvalidKey
		}
		point, ok := r.str()
		if !ok {
			return nil, errInvalidKey
		}
		curve, bits := ecdhCurve(want)
		// NewPublicKey accepts only an uncompressed point on the curve.
		if _, err := curve.NewPublicKey(point); err != nil {
			return nil, errInvalidKey
		}
		k.Bits = bits
		if strings.HasPrefix(typ, "sk-") {
			if app, ok := r.str(); !ok || len(app) == 0 {
				return nil, errInvalidKey
			}
		}
	default:
		return nil, errInvalidKey
	}
	if len(r.b) != 0 {
		return nil, errInvalidKey // trailing bytes
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
