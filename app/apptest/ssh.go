package apptest

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/fx"
	"golang.org/x/crypto/ssh"

	"github.com/hearth-forge/hearth/app"
	"github.com/hearth-forge/hearth/core/config"
)

// Git over SSH in tests. Every test user name gets one ed25519 key for
// the whole test process, in a directory with an ssh_config whose
// IdentityFile is picked by the login name (%r): a clone of
// ssh://dev@host/... signs in with dev's key, so one GIT_SSH_COMMAND
// serves every user of every test server. Servers only learn a key when
// a test registers it for the user (Server.SSHRemote).

// sshKeys is the process's key directory.
var sshKeys struct {
	once sync.Once
	dir  string
	err  error
	mu   sync.Mutex
	pub  map[string]string // user name -> authorized_keys line
}

// sshDir creates the key directory and its ssh_config once.
func sshDir() (string, error) {
	sshKeys.once.Do(func() {
		dir, err := os.MkdirTemp("", "hearth-ssh-keys-")
		if err != nil {
			sshKeys.err = err
			return
		}
		cfg := fmt.Sprintf(`Host *
	IdentityFile %s/%%r
	IdentitiesOnly yes
	BatchMode yes
	StrictHostKeyChecking no
	UserKnownHostsFile /dev/null
	LogLevel ERROR
	ConnectTimeout 20
`, dir)
		sshKeys.err = os.WriteFile(filepath.Join(dir, "config"), []byte(cfg), 0o600)
		sshKeys.dir, sshKeys.pub = dir, map[string]string{}
	})
	return sshKeys.dir, sshKeys.err
}

// GitSSHCommand is the GIT_SSH_COMMAND of test git clients: OpenSSH with
// the test key directory's config (see sshDir).
func GitSSHCommand() string {
	dir, err := sshDir()
	if err != nil {
		return "false"
	}
	return "ssh -F " + filepath.Join(dir, "config")
}

// SSHKey returns the authorized_keys line of user's test key, making the
// key (and its file, which ssh picks by login name) on first use.
func SSHKey(t testing.TB, user string) string {
	t.Helper()
	dir, err := sshDir()
	if err != nil {
		t.Fatalf("ssh key directory: %v", err)
	}
	sshKeys.mu.Lock()
	defer sshKeys.mu.Unlock()
	if line, ok := sshKeys.pub[user]; ok {
		return line
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, user)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, user), pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sp))) + " " + user + "@tests"
	sshKeys.pub[user] = line
	return line
}

// SSH starts the server's SSH listener (app.ServeSSH) on a free loopback
// port, which clone URLs (ssh_url_to_repo) then name.
func SSH() Option {
	return func(o *options) { o.ssh = true }
}

// sshListen picks the SSH port, before the configuration is validated.
func (o *options) sshListen(t testing.TB, cfg *config.Config) {
	if !o.ssh {
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port for ssh: %v", err)
	}
	cfg.SSH.Listen = ln.Addr().String()
	_ = ln.Close()
}

// sshOptions start the SSH server with the app and keep it in s.
func (o *options) sshOptions(s *Server) []fx.Option {
	if !o.ssh {
		return nil
	}
	s.SSHAddr = s.Config.SSH.Listen
	return []fx.Option{app.ServeSSH(), fx.Populate(&s.SSH)}
}

// SSHRemote is the ssh:// URL user clones path by (as ssh_url_to_repo
// gives it, with user's login so the test key directory picks user's
// key), registering user's key on this server on first use.
func (s *Server) SSHRemote(t testing.TB, path, user string) string {
	t.Helper()
	if s.SSHAddr == "" {
		t.Fatal("SSHRemote on a server started without apptest.SSH()")
	}
	s.sshMu.Lock()
	defer s.sshMu.Unlock()
	if s.sshUsers == nil {
		s.sshUsers = map[string]bool{}
	}
	if !s.sshUsers[user] {
		s.RegisterSSHKey(t, user, SSHKey(t, user))
		s.sshUsers[user] = true
	}
	u := url.URL{Scheme: "ssh", User: url.User(user), Host: s.SSHAddr, Path: "/" + path + ".git"}
	return u.String()
}

// RegisterSSHKey adds key to user's keys, as root.
func (s *Server) RegisterSSHKey(t testing.TB, user, key string) {
	t.Helper()
	var found []struct{ ID int64 }
	s.JSON(t, "GET", "/users?username="+url.QueryEscape(user), s.RootToken, nil, 200, &found)
	if len(found) != 1 {
		t.Fatalf("user %q: %d found", user, len(found))
	}
	s.JSON(t, "POST", fmt.Sprintf("/users/%d/keys", found[0].ID), s.RootToken,
		url.Values{"title": {user + " test key"}, "key": {key}}, 201, nil)
}
