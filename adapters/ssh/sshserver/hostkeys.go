package sshserver

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/crypto/ssh"
)

// rsaHostKeyBits is the size of a generated RSA host key, OpenSSH's
// ssh-keygen default.
const rsaHostKeyBits = 3072

// hostKeySpec names a host key file and how to make its key the first time.
type hostKeySpec struct {
	file     string
	generate func() (crypto.PrivateKey, error)
}

var hostKeySpecs = []hostKeySpec{
	{"ssh_host_ed25519_key", func() (crypto.PrivateKey, error) {
		_, k, err := ed25519.GenerateKey(rand.Reader)
		return k, err
	}},
	{"ssh_host_rsa_key", func() (crypto.PrivateKey, error) {
		return rsa.GenerateKey(rand.Reader, rsaHostKeyBits)
	}},
}

// loadHostKeys reads the host keys in dir, generating those missing, so a
// restart presents the keys clients already trust.
func loadHostKeys(dir string) ([]ssh.Signer, error) {
	if dir == "" {
		return nil, errors.New("sshserver: no host key directory")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("sshserver: host key directory: %w", err)
	}
	signers := make([]ssh.Signer, 0, len(hostKeySpecs))
	for _, spec := range hostKeySpecs {
		s, err := loadOrCreateHostKey(filepath.Join(dir, spec.file), spec.generate)
		if err != nil {
			return nil, err
		}
		signers = append(signers, s)
	}
	return signers, nil
}

func loadOrCreateHostKey(path string, generate func() (crypto.PrivateKey, error)) (ssh.Signer, error) {
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		s, err := ssh.ParsePrivateKey(data)
		if err != nil {
			return nil, fmt.Errorf("sshserver: host key %s: %w", path, err)
		}
		return s, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("sshserver: host key %s: %w", path, err)
	}
	key, err := generate()
	if err != nil {
		return nil, fmt.Errorf("sshserver: generating host key %s: %w", path, err)
	}
	block, err := ssh.MarshalPrivateKey(key, "hearth host key")
	if err != nil {
		return nil, fmt.Errorf("sshserver: encoding host key %s: %w", path, err)
	}
	if err := writeFileAtomic(path, pem.EncodeToMemory(block)); err != nil {
		return nil, fmt.Errorf("sshserver: writing host key %s: %w", path, err)
	}
	s, err := ssh.NewSignerFromKey(key)
	if err != nil {
		return nil, fmt.Errorf("sshserver: host key %s: %w", path, err)
	}
	return s, nil
}

// writeFileAtomic writes data to path with mode 0600 through a temporary
// file renamed into place, so a crash never leaves a truncated key that
// would stop the next start.
func writeFileAtomic(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if err = f.Chmod(0o600); err != nil {
		_ = f.Close()
		return err
	}
	if _, err = f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
