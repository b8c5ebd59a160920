package secrets

import (
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

var phc = regexp.MustCompile(`^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`)

func mustHash(t *testing.T, h *Argon2Hasher, pw string) string {
	t.Helper()
	hash, err := h.Hash(pw)
	if err != nil {
		t.Fatalf("Hash: %v", err)
	}
	return hash
}

func mustVerify(t *testing.T, h *Argon2Hasher, hash, pw string, want bool) {
	t.Helper()
	ok, err := h.Verify(hash, pw)
	if err != nil {
		t.Fatalf("Verify(%q): %v", hash, err)
	}
	if ok != want {
		t.Fatalf("Verify(%q, %q) = %v, want %v", hash, pw, ok, want)
	}
}

func TestArgon2HashVerify(t *testing.T) {
	h := NewFastArgon2Hasher()
	for _, pw := range []string{"correct horse battery staple", "", "pässwörd ✓", "a"} {
		hash := mustHash(t, h, pw)
		if !phc.MatchString(hash) {
			t.Errorf("Hash(%q) = %q, want the PHC argon2id format", pw, hash)
		}
		if strings.Contains(hash, pw) && pw != "" && pw != "a" {
			t.Errorf("hash contains the password")
		}
		mustVerify(t, h, hash, pw, true)
		mustVerify(t, h, hash, pw+"x", false)
	}
}

func TestArgon2Salted(t *testing.T) {
	h := NewFastArgon2Hasher()
	a, b := mustHash(t, h, "same"), mustHash(t, h, "same")
	if a == b {
		t.Fatalf("two hashes of one password are equal: %s", a)
	}
}

// TestArgon2NoTruncation is what bcrypt gets wrong: passwords that share
// their first 72 bytes must not verify against each other.
func TestArgon2NoTruncation(t *testing.T) {
	h := NewFastArgon2Hasher()
	prefix := strings.Repeat("x", 100)
	hash := mustHash(t, h, prefix+"1")
	mustVerify(t, h, hash, prefix+"1", true)
	mustVerify(t, h, hash, prefix+"2", false)
	mustVerify(t, h, hash, prefix[:72], false)
}

func TestArgon2Parameters(t *testing.T) {
	prod, fast := NewArgon2Hasher(), NewFastArgon2Hasher()
	prodHash := mustHash(t, prod, "pw")
	if m := phc.FindStringSubmatch(prodHash); m == nil || m[1] != "65536" || m[2] != "1" || m[3] != "2" {
		t.Errorf("production hash %s, want m=65536,t=1,p=2", prodHash)
	}
	// Verify reads the parameters from the hash, whichever hasher checks it.
	mustVerify(t, fast, prodHash, "pw", true)
	mustVerify(t, prod, mustHash(t, fast, "pw"), "pw", true)
}

func TestVerifyBcrypt(t *testing.T) {
	h := NewFastArgon2Hasher()
	b, err := bcrypt.GenerateFromPassword([]byte("imported"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	hash := string(b)
	for _, prefix := range []string{"$2a$", "$2b$", "$2y$"} {
		variant := prefix + hash[4:]
		mustVerify(t, h, variant, "imported", true)
		mustVerify(t, h, variant, "imported!", false)
	}
	if _, err := h.Verify("$2a$04$tooshort", "x"); err == nil {
		t.Error("Verify accepted a truncated bcrypt hash")
	}
}

func TestVerifyMalformed(t *testing.T) {
	h := NewFastArgon2Hasher()
	good := mustHash(t, h, "pw")
	parts := strings.Split(good, "$")
	salt, key := parts[4], parts[5]
	for _, hash := range []string{
		"",
		"plaintext",
		"$argon2i$v=19$m=64,t=1,p=1$" + salt + "$" + key,
		"$argon2id$v=18$m=64,t=1,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=64,t=1$" + salt + "$" + key,
		"$argon2id$v=19$m=64,t=1,p=1,x=2$" + salt + "$" + key,
		"$argon2id$v=19$m=64,t=0,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=64,t=1,p=0$" + salt + "$" + key,
		"$argon2id$v=19$m=4,t=1,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=4194304,t=1,p=1$" + salt + "$" + key, // 4 GiB: refused, not attempted
		"$argon2id$v=19$m=64,t=1000,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=64,t=1,p=1$" + salt + "$" + "!!!",
		"$argon2id$v=19$m=64,t=1,p=1$" + "" + "$" + key,
		"$argon2id$v=19$m=64,t=1,p=1$" + salt + "$" + key + "$",
		"$argon2id$v=19$m=+64,t=1,p=1$" + salt + "$" + key,
	} {
		if ok, err := h.Verify(hash, "pw"); err == nil || ok {
			t.Errorf("Verify(%q) = %v, %v; want an error", hash, ok, err)
		}
	}
}

func TestRandomTokens(t *testing.T) {
	var g RandomTokens
	seen := map[string]bool{}
	for range 1000 {
		tok, err := g.NewToken("glpat-")
		if err != nil {
			t.Fatalf("NewToken: %v", err)
		}
		rest, ok := strings.CutPrefix(tok, "glpat-")
		if !ok {
			t.Fatalf("token %q lacks its prefix", tok)
		}
		raw, err := base64.RawURLEncoding.DecodeString(rest)
		if err != nil || len(raw) != 24 {
			t.Fatalf("token %q: %d random bytes (%v), want 24 in URL-safe base64", tok, len(raw), err)
		}
		if seen[tok] {
			t.Fatalf("token %q generated twice", tok)
		}
		seen[tok] = true
	}
	tok, err := g.NewToken("")
	if err != nil || len(tok) != 32 {
		t.Errorf("NewToken(\"\") = %q, %v", tok, err)
	}
}

func BenchmarkArgon2Production(b *testing.B) {
	h := NewArgon2Hasher()
	hash, _ := h.Hash("benchmark")
	for b.Loop() {
		if ok, err := h.Verify(hash, "benchmark"); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
