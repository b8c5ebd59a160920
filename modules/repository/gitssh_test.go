package repository_test

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// sshRun runs OpenSSH against the server as user (with user's test key)
// and returns its combined output and exit status.
func sshRun(t *testing.T, s *repoServer, user string, command ...string) (string, int) {
	t.Helper()
	host, port, err := net.SplitHostPort(s.SSHAddr)
	if err != nil {
		t.Fatal(err)
	}
	args := append(strings.Fields(apptest.GitSSHCommand())[1:], "-p", port, user+"@"+host)
	cmd := exec.Command("ssh", append(args, command...)...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	}
	t.Fatalf("ssh: %v", err)
	return "", -1
}

// TestGitSSHShell: `ssh git@host` greets the user and exits 0, as
// gitlab-shell does; anything but git's three commands on a project path
// is refused, and a key removed from its user no longer signs in.
func TestGitSSHShell(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t, apptest.SSH())
	devID, _ := s.User("dev")
	p := s.hosted("shell", "private", 0)
	s.member(p.ID, devID, domain.Developer)
	remote := s.SSHRemote(t, p.Path, "dev")

	out, code := sshRun(t, s, "dev")
	if code != 0 || !strings.Contains(out, "Welcome to Hearth, @dev!") {
		t.Fatalf("ssh without a command: exit %d\n%s", code, out)
	}
	hostile := []string{
		"sh",
		"git-upload-pack",
		"git-upload-pack '--help'",
		"git-upload-pack '" + p.Path + "' '--upload-pack=touch /tmp/pwned'",
		"git-upload-pack '../../" + p.Path + "'",
		"git-upload-pack '" + strings.Replace(p.Path, "/", "/../", 1) + "'",
		"git-upload-pack '/etc/passwd'",
		"git-upload-pack \"" + p.Path + "\"",
		"git-upload-pack '" + p.Path + "';id",
		"git-upload-pack '-u'/x",
		"git-shell -c 'git-upload-pack " + p.Path + "'",
		"scp -t /tmp",
	}
	for _, cmd := range hostile {
		out, code := sshRun(t, s, "dev", cmd)
		if code == 0 || !(strings.Contains(out, "GitLab: Disallowed command") || strings.Contains(out, "could not be found")) {
			t.Errorf("ssh %q: exit %d\n%s", cmd, code, out)
		}
	}
	if _, err := os.Stat("/tmp/pwned"); err == nil {
		t.Fatal("a command's argument reached git as an option")
	}

	// A push request that is not git's protocol is refused with the
	// reason, not taken for a server failure.
	host, port, _ := net.SplitHostPort(s.SSHAddr)
	garbage := exec.Command("ssh", append(strings.Fields(apptest.GitSSHCommand())[1:], "-p", port, "dev@"+host,
		"git-receive-pack '"+p.Path+"'")...)
	garbage.Stdin = strings.NewReader("zzzz not a pkt-line")
	garbageOut, err := garbage.CombinedOutput()
	if err == nil || !strings.Contains(string(garbageOut), "GitLab: push request: bad pkt-line length") {
		t.Fatalf("garbage push: %v\n%s", err, garbageOut)
	}

	// A revoked key is refused on the next connection.
	git := gitClient{t}
	git.clone(remote)
	var keys []struct{ ID int64 }
	s.Expect(200, "GET", fmt.Sprintf("/users/%d/keys", devID), s.RootToken, nil).Decode(t, &keys)
	if len(keys) != 1 {
		t.Fatalf("dev's keys: %+v", keys)
	}
	s.Expect(200, "DELETE", fmt.Sprintf("/users/%d/keys/%d", devID, keys[0].ID), s.RootToken, nil)
	if out := git.fails("", "clone", remote, t.TempDir()+"/x"); !strings.Contains(out, "Permission denied (publickey)") {
		t.Fatalf("clone with a revoked key: %s", out)
	}
}

// TestGitSSHProtocolsAndArchive: protocol v2 and v0 fetches, and git
// archive --remote (upload-archive), over SSH.
func TestGitSSHProtocolsAndArchive(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t, apptest.SSH())
	p := s.hosted("protocols", "private", 0)
	git := gitClient{t}
	remote := s.SSHRemote(t, p.Path, "root")
	w := git.clone(remote)
	head := git.commit(w, "a.txt", "a\n")
	git.run(w, "push", "-q", "origin", "master")
	for _, version := range []string{"0", "1", "2"} {
		c := filepath.Join(t.TempDir(), "c")
		git.run("", "-c", "protocol.version="+version, "clone", "-q", remote, c)
		if got := git.run(c, "rev-parse", "HEAD"); got != head {
			t.Fatalf("protocol v%s clone HEAD %s, want %s", version, got, head)
		}
	}
	// ssh_url_to_repo names the SSH server (login git), and clones.
	var proj struct {
		SSHURL string `json:"ssh_url_to_repo"`
	}
	s.Expect(200, "GET", fmt.Sprintf("/projects/%d", p.ID), s.RootToken, nil).Decode(t, &proj)
	if want := "ssh://git@" + s.SSHAddr + "/" + p.Path + ".git"; proj.SSHURL != want {
		t.Fatalf("ssh_url_to_repo = %q, want %q", proj.SSHURL, want)
	}
	s.RegisterSSHKey(t, "root", apptest.SSHKey(t, "git"))
	if got := git.run(git.clone(proj.SSHURL), "rev-parse", "HEAD"); got != head {
		t.Fatalf("clone of ssh_url_to_repo: HEAD %s, want %s", got, head)
	}

	tarball := filepath.Join(t.TempDir(), "a.tar")
	git.run(w, "archive", "--remote", remote, "-o", tarball, "master")
	if fi, err := os.Stat(tarball); err != nil || fi.Size() == 0 {
		t.Fatalf("archive --remote: %v", err)
	}
}

// TestGitSSHDeployKeys: a deploy key clones its project; it pushes only
// with can_push, never to a protected branch, and reaches no other
// project. Its pushes are recorded as the user who added it.
func TestGitSSHDeployKeys(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t, apptest.SSH())
	p := s.hosted("deployed", "private", 0)
	other := s.hosted("elsewhere", "private", 0)
	git := gitClient{t}
	w := git.clone(s.SSHRemote(t, p.Path, "root"))
	git.commit(w, "a.txt", "a\n")
	git.run(w, "push", "-q", "origin", "master")

	addKey := func(login string, canPush bool) {
		s.Expect(201, "POST", fmt.Sprintf("/projects/%d/deploy_keys", p.ID), s.RootToken,
			apptest.Form("title", login, "key", apptest.SSHKey(t, login), "can_push", fmt.Sprint(canPush)))
	}
	keyRemote := func(login, path string) string {
		u := url.URL{Scheme: "ssh", User: url.User(login), Host: s.SSHAddr, Path: "/" + path + ".git"}
		return u.String()
	}
	addKey("deploy-ro", false)
	addKey("deploy-rw", true)

	ro := git.clone(keyRemote("deploy-ro", p.Path))
	git.commit(ro, "ro.txt", "ro\n")
	if out := git.fails(ro, "push", "origin", "HEAD:refs/heads/ro"); !strings.Contains(out, "GitLab: This deploy key does not have write access to this project.") {
		t.Fatalf("read-only deploy key push: %s", out)
	}
	if out := git.fails("", "clone", keyRemote("deploy-ro", other.Path), t.TempDir()+"/x"); !strings.Contains(out, "could not be found") {
		t.Fatalf("deploy key on another project: %s", out)
	}

	rw := git.clone(keyRemote("deploy-rw", p.Path))
	head := git.commit(rw, "rw.txt", "rw\n")
	git.run(rw, "push", "-q", "origin", "HEAD:refs/heads/deployed")
	evs := s.pushesOf(p.ID, "refs/heads/deployed")
	if len(evs) != 1 || evs[0].After != head {
		t.Fatalf("deploy key push events = %+v", evs)
	}
	var root struct{ ID int64 }
	s.Expect(200, "GET", "/user", s.RootToken, nil).Decode(t, &root)
	if evs[0].Actor != root.ID {
		t.Errorf("deploy key push actor %d, want root (who added the key)", evs[0].Actor)
	}
	// No deploy key pushes to a protected branch (it holds no member's
	// level).
	s.protect(p.ID, "master", false)
	if out := git.fails(rw, "push", "origin", "HEAD:master"); !strings.Contains(out, "GitLab: You are not allowed to push code to protected branches on this project.") {
		t.Fatalf("deploy key push to a protected branch: %s", out)
	}
}
