// Package secrets implements Hearth's password hashing and token generation.
package secrets

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/bcrypt"

	"github.com/hearth-forge/hearth/core/ports"
)

const (
	saltLen = 16
	keyLen  = 32
)

// Argon2Hasher hashes passwords with argon2id and a random salt, encoded in
// the PHC string format: $argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash>
// (unpadded standard base64). Unlike bcrypt it reads the whole password, so
// long passphrases sharing a prefix do not collide.
//
// Verify reads the parameters from the hash, so hashes made with other
// parameters (older settings, the fast test hasher) keep working, and it also
// accepts bcrypt hashes ($2a$, $2b$, $2y$) of users imported from GitLab.
//
// Each hash costs its memory parameter in RAM, so the hasher runs at most
// GOMAXPROCS hashes at once; further callers wait. That bounds memory under a
// burst of sign-ins (2 x 64 MiB on a 2-core box with NewArgon2Hasher).
type Argon2Hasher struct {
	memory  uint32 // KiB
	passes  uint32
	threads uint8
	slots   chan struct{}
}

// NewArgon2Hasher returns the production hasher: m=64 MiB, t=1, p=2 (RFC 9106's
// memory-constrained profile scaled to a small server: tens of milliseconds on
// two cores).
func NewArgon2Hasher() *Argon2Hasher { return newArgon2Hasher(64*1024, 1, 2) }

// NewFastArgon2Hasher returns a hasher with tiny parameters for tests: still
// argon2id, still salted, but cheap. Never use it in production.
func NewFastArgon2Hasher() *Argon2Hasher { return newArgon2Hasher(64, 1, 1) }

func newArgon2Hasher(memory, passes uint32, threads uint8) *Argon2Hasher {
	return &Argon2Hasher{
		memory: memory, passes: passes, threads: threads,
		slots: make(chan struct{}, max(1, runtime.GOMAXPROCS(0))),
	}
}

// Hash returns the PHC-encoded argon2id hash of password with a fresh salt.
func (h *Argon2Hasher) Hash(password string) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("secrets: salt: %w", err)
	}
	key := h.derive([]byte(password), salt, h.memory, h.passes, h.threads, keyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, h.memory, h.passes, h.threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// Verify reports whether password matches an argon2id or bcrypt hash, in
// constant time. A hash it cannot parse is an error.
func (h *Argon2Hasher) Verify(hash, password string) (bool, error) {
	switch {
	case strings.HasPrefix(hash, "$argon2id$"):
		p, err := parseArgon2id(hash)
		if err != nil {
			return false, err
		}
		key := h.derive([]byte(password), p.salt, p.memory, p.passes, p.threads, uint32(len(p.key)))
		return subtle.ConstantTimeCompare(key, p.key) == 1, nil
	case strings.HasPrefix(hash, "$2a$"), strings.HasPrefix(hash, "$2b$"), strings.HasPrefix(hash, "$2y$"):
		// bcrypt only ever reads the first 72 bytes; imported hashes were
		// made that way, so they verify the same way.
		err := bcrypt.CompareHashAndPassword([]byte(hash), []byte(password))
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, bcrypt.ErrMismatchedHashAndPassword):
			return false, nil
		}
		return false, fmt.Errorf("secrets: bcrypt hash: %w", err)
	}
	return false, errors.New("secrets: unknown password hash format")
}

// derive runs argon2id, waiting for a slot so concurrent hashes stay within
// the memory budget.
func (h *Argon2Hasher) derive(password, salt []byte, memory, passes uint32, threads uint8, n uint32) []byte {
	h.slots <- struct{}{}
	defer func() { <-h.slots }()
	return argon2.IDKey(password, salt, passes, memory, threads, n)
}

type argon2Params struct {
	memory, passes uint32
	threads        uint8
	salt, key      []byte
}

// parseArgon2id decodes a PHC argon2id string, refusing parameters no
// Hearth hasher produces (a crafted hash must not cost gigabytes).
func parseArgon2id(hash string) (argon2Params, error) {
	var p argon2Params
	bad := func(why string) (argon2Params, error) {
		return argon2Params{}, fmt.Errorf("secrets: malformed argon2id hash: %s", why)
	}
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return bad("want $argon2id$v=..$m=..,t=..,p=..$salt$hash")
	}
	if parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return bad("unsupported version " + parts[2])
	}
	var threads uint32
	if n, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.memory, &p.passes, &threads); err != nil || n != 3 ||
		parts[3] != fmt.Sprintf("m=%d,t=%d,p=%d", p.memory, p.passes, threads) {
		return bad("parameters " + parts[3])
	}
	switch {
	case threads < 1 || threads > 64:
		return bad("p out of range")
	case p.passes < 1 || p.passes > 64:
		return bad("t out of range")
	case p.memory < 8*threads || p.memory > 1<<20:
		return bad("m out of range")
	}
	p.threads = uint8(threads)
	var err error
	if p.salt, err = base64.RawStdEncoding.DecodeString(parts[4]); err != nil || len(p.salt) < 8 {
		return bad("salt")
	}
	if p.key, err = base64.RawStdEncoding.DecodeString(parts[5]); err != nil || len(p.key) < 16 || len(p.key) > 128 {
		return bad("hash")
	}
	return p, nil
}

var _ ports.PasswordHasher = (*Argon2Hasher)(nil)
