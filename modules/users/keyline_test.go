package users

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"testing"
)

// sshString appends an SSH wire-format string.
func sshString(b []byte, s []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// keyLine is an authorized_keys line of typ and blob.
func keyLine(typ string, blob []byte) string {
	return typ + " " + base64.StdEncoding.EncodeToString(blob) + " test@host"
}

// ed25519Blob is a fresh Ed25519 public key in SSH wire format.
func ed25519Blob(t testing.TB) []byte {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return sshString(sshString(nil, []byte("ssh-ed25519")), pub)
}
