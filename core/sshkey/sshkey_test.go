package sshkey

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sshString appends an SSH wire-format string.
func sshString(b []byte, s []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

func sshMpint(b []byte, n *big.Int) []byte {
	v := n.Bytes()
	if len(v) > 0 && v[0]&0x80 != 0 {
		v = append([]byte{0}, v...)
	}
	return sshString(b, v)
}

func keyLine(typ string, blob []byte) string {
	return typ + " " + base64.StdEncoding.EncodeToString(blob) + " test@host"
}

func ed25519Blob(t testing.TB) []byte {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return sshString(sshString(nil, []byte("ssh-ed25519")), pub)
}

func rsaBlob(e int, n *big.Int) []byte {
	b := sshString(nil, []byte("ssh-rsa"))
	b = sshMpint(b, big.NewInt(int64(e)))
	return sshMpint(b, n)
}

func ecdsaBlob(t testing.TB, c elliptic.Curve, name string) []byte {
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := k.PublicKey.ECDH()
	if err != nil {
		t.Fatal(err)
	}
	b := sshString(nil, []byte("ecdsa-sha2-"+name))
	b = sshString(b, []byte(name))
	return sshString(b, pub.Bytes())
}

func TestParseGoGeneratedKeys(t *testing.T) {
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		typ  string
		blob []byte
		bits int
	}{
		{"ssh-ed25519", ed25519Blob(t), 256},
		{"ssh-rsa", rsaBlob(rk.E, rk.N), 2048},
		{"ecdsa-sha2-nistp256", ecdsaBlob(t, elliptic.P256(), "nistp256"), 256},
		{"ecdsa-sha2-nistp384", ecdsaBlob(t, elliptic.P384(), "nistp384"), 384},
		{"ecdsa-sha2-nistp521", ecdsaBlob(t, elliptic.P521(), "nistp521"), 521},
	}
	for _, c := range cases {
		t.Run(c.typ, func(t *testing.T) {
			line := keyLine(c.typ, c.blob)
			k, err := Parse(line)
			if err != nil {
				t.Fatalf("parse %s: %v", line, err)
			}
			if k.Type != c.typ || k.Bits != c.bits || k.Comment != "test@host" {
				t.Errorf("got %+v", k)
			}
			if k.String() != line {
				t.Errorf("String %q, want %q", k.String(), line)
			}
			fp := k.Fingerprint()
			if len(fp) != 47 || strings.Count(fp, ":") != 15 {
				t.Errorf("fingerprint %q", fp)
			}
		})
	}
}

// TestParseSSHKeygenKeys checks real keys from OpenSSH and that our MD5
// fingerprint matches `ssh-keygen -l -E md5`.
func TestParseSSHKeygenKeys(t *testing.T) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen not installed")
	}
	dir := t.TempDir()
	for _, spec := range [][]string{
		{"rsa", "-b", "2048"}, {"rsa", "-b", "4096"}, {"ed25519"}, {"ecdsa", "-b", "256"},
		{"ecdsa", "-b", "384"}, {"ecdsa", "-b", "521"},
	} {
		name := strings.Join(spec, "")
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(dir, name)
			args := append([]string{"-q", "-N", "", "-C", "me@laptop", "-f", file, "-t"}, spec...)
			if out, err := exec.Command("ssh-keygen", args...).CombinedOutput(); err != nil {
				t.Fatalf("ssh-keygen %v: %v\n%s", args, err, out)
			}
			pub, err := os.ReadFile(file + ".pub")
			if err != nil {
				t.Fatal(err)
			}
			k, err := Parse(string(pub))
			if err != nil {
				t.Fatalf("parse %s: %v", pub, err)
			}
			out, err := exec.Command("ssh-keygen", "-l", "-E", "md5", "-f", file+".pub").CombinedOutput()
			if err != nil {
				t.Fatalf("ssh-keygen -l: %v\n%s", err, out)
			}
			// "2048 MD5:aa:bb:... me@laptop (RSA)"
			fields := strings.Fields(string(out))
			if len(fields) < 2 || "MD5:"+k.Fingerprint() != fields[1] {
				t.Errorf("fingerprint %s, ssh-keygen says %s", k.Fingerprint(), out)
			}
			if fields[0] != itoa(k.Bits) {
				t.Errorf("bits %d, ssh-keygen says %s", k.Bits, fields[0])
			}
			if k.Comment != "me@laptop" {
				t.Errorf("comment %q", k.Comment)
			}
		})
	}
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }

func TestParseWrappedKey(t *testing.T) {
	line := keyLine("ssh-ed25519", ed25519Blob(t))
	wrapped := "  " + line[:30] + "\r\n" + line[30:] + "\n"
	k, err := Parse(wrapped)
	if err != nil {
		t.Fatalf("wrapped key: %v", err)
	}
	if k.String() != line {
		t.Errorf("normalized %q, want %q", k.String(), line)
	}
}

func TestParseRejectsBadKeys(t *testing.T) {
	ed := ed25519Blob(t)
	ecdsa256 := ecdsaBlob(t, elliptic.P256(), "nistp256")
	small, _ := new(big.Int).SetString(strings.Repeat("f", 128), 16) // 512 bits, odd
	mod1024 := new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 1023), big.NewInt(1))
	huge := new(big.Int).Lsh(big.NewInt(1), MaxRSABits+8)
	huge.Add(huge, big.NewInt(1))
	b64 := base64.StdEncoding.EncodeToString

	// A point that is not on the curve: flip the last byte.
	offCurve := append([]byte(nil), ecdsa256...)
	offCurve[len(offCurve)-1] ^= 0xff

	// Curve name disagreeing with the type.
	wrongCurve := sshString(sshString(nil, []byte("ecdsa-sha2-nistp256")), []byte("nistp384"))
	wrongCurve = sshString(wrongCurve, make([]byte, 97))

	negative := sshString(nil, []byte("ssh-rsa"))
	negative = sshString(negative, []byte{0x81}) // mpint with the sign bit set
	negative = sshMpint(negative, small)

	cases := map[string]string{
		"empty":              "",
		"type only":          "ssh-ed25519",
		"not base64":         "ssh-ed25519 AAAAnot-base64!!",
		"type mismatch":      "ssh-rsa " + b64(ed),
		"unknown type":       keyLine("ssh-foo", sshString(sshString(nil, []byte("ssh-foo")), []byte("x"))),
		"certificate":        keyLine("ssh-ed25519-cert-v01@openssh.com", sshString(nil, []byte("ssh-ed25519-cert-v01@openssh.com"))),
		"truncated":          "ssh-ed25519 " + b64(ed[:len(ed)-3]),
		"trailing bytes":     "ssh-ed25519 " + b64(append(append([]byte(nil), ed...), 0, 0, 0, 0)),
		"short ed25519":      keyLine("ssh-ed25519", sshString(sshString(nil, []byte("ssh-ed25519")), make([]byte, 31))),
		"off curve":          keyLine("ecdsa-sha2-nistp256", offCurve),
		"wrong curve":        keyLine("ecdsa-sha2-nistp256", wrongCurve),
		"even rsa exponent":  keyLine("ssh-rsa", rsaBlob(65536, mod1024)),
		"rsa too large":      keyLine("ssh-rsa", rsaBlob(65537, huge)),
		"negative mpint":     keyLine("ssh-rsa", negative),
		"options prefix":     `no-pty ` + keyLine("ssh-ed25519", ed),
		"over length":        "ssh-rsa " + strings.Repeat("A", MaxKeyLength),
		"length field lying": "ssh-ed25519 " + b64([]byte{0, 0, 0, 0x7f, 's'}),
	}
	for name, key := range cases {
		t.Run(name, func(t *testing.T) {
			if k, err := Parse(key); err == nil {
				t.Errorf("accepted %q as %+v", key, k)
			}
		})
	}
}

func TestSmallRSAKeyIsTooSmall(t *testing.T) {
	n, _ := new(big.Int).SetString(strings.Repeat("f", 128), 16) // 512-bit odd modulus
	_, err := Parse(keyLine("ssh-rsa", rsaBlob(65537, n)))
	var small *TooSmallError
	if !errors.As(err, &small) || small.Error() != "must be at least 1024 bits" {
		t.Fatalf("512-bit RSA: %v", err)
	}
}

func TestFingerprintKnownValue(t *testing.T) {
	// MD5 of the bytes "abc" is 900150983cd24fb0d6963f7d28e17f72.
	k := &PublicKey{Blob: []byte("abc")}
	if got := k.Fingerprint(); got != "90:01:50:98:3c:d2:4f:b0:d6:96:3f:7d:28:e1:7f:72" {
		t.Errorf("fingerprint %s", got)
	}
}

func TestCheckMessages(t *testing.T) {
	small, _ := new(big.Int).SetString(strings.Repeat("f", 128), 16)
	cases := map[string]struct {
		key  string
		want map[string][]string
	}{
		"invalid":   {"ssh-rsa AAAA", map[string][]string{"key": {"is invalid"}, "fingerprint": {"cannot be generated"}}},
		"too small": {keyLine("ssh-rsa", rsaBlob(65537, small)), map[string][]string{"key": {"must be at least 1024 bits"}}},
		"too long":  {"ssh-rsa " + strings.Repeat("A", MaxKeyLength), map[string][]string{"key": {"is too long (maximum is 5000 characters)"}}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			k, got := Check(c.key)
			if k != nil || !reflect.DeepEqual(got, c.want) {
				t.Errorf("Check = %v, %v; want nil, %v", k, got, c.want)
			}
		})
	}
	blob := ed25519Blob(t)
	k, msgs := Check(" " + keyLine("ssh-ed25519", blob) + "\n")
	if msgs != nil || k == nil || !bytes.Equal(k.Blob, blob) {
		t.Fatalf("Check(valid) = %+v, %v", k, msgs)
	}
	if Fingerprint(blob) != k.Fingerprint() {
		t.Errorf("Fingerprint(blob) %s != key's %s", Fingerprint(blob), k.Fingerprint())
	}
}
