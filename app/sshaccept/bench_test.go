package sshaccept_test

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
)

// BenchmarkSSHClone20kCommits clones a 20,000-commit repository over SSH
// (OpenSSH's client, Hearth's SSH server, git upload-pack) and, in the
// same loop, with a local `git clone --no-local` of the same bare
// repository (git's own pack transfer without any server); issue 16 asks
// for the SSH clone within 1.1x of the local one. When OpenSSH's sshd is
// installed, the same clone through a private sshd of the same machine
// is measured too (sshd-ms/clone), as the reference for what an SSH hop
// costs. Run it with:
//
//	go test ./app/sshaccept -run '^$' -bench SSHClone -benchtime 10x
//
// Measured on the idle 2-core development machine on 2026-11-28: local
// 340 ms, Hearth 420 ms (1.23x), OpenSSH's sshd 730 ms (2.1x). Where the
// 80 ms go: Hearth's side costs about 20 ms of CPU per clone (key
// exchange, chacha20-poly1305 of the 7.7 MB pack); the OpenSSH client
// costs about 120 ms of CPU (90 ms of it in the kernel: some 70,000 page
// faults as it reallocates the buffer of data git has not read yet), on
// two cores that index-pack wants. With glibc told to keep that buffer
// (MALLOC_MMAP_THRESHOLD_=8388608 in the client's environment) the same
// clone takes 1.15x. What the server controls was tried without gain:
// whole 32 KiB packets (coalescing upload-pack's writes), Nagle on, no
// quick ACKs, AES-GCM instead of ChaCha20; smaller packets cost more (16
// KiB: 1.47x, 4 KiB: 2.8x), as the client's cost is per packet. The same
// machine had measured 2.6x in an earlier session, when the whole test
// suite also ran four times slower than it does today.
func BenchmarkSSHClone20kCommits(b *testing.B) {
	if _, err := exec.LookPath("ssh"); err != nil {
		b.Skip("OpenSSH client not installed")
	}
	srv := apptest.New(b, apptest.SSH(), apptest.Configure(func(c *config.Config) { c.Log.Level = "warn" }))
	var proj struct {
		ID   int64
		Path string `json:"path_with_namespace"`
	}
	srv.JSON(b, "POST", "/projects", srv.RootToken, map[string]any{"name": "big"}, 201, &proj)
	repo := srv.RepoDir(proj.ID)
	seedCommits(b, repo, 20000)
	remote := srv.SSHRemote(b, proj.Path, "root")

	clone := func(from string, extra ...string) time.Duration {
		dir := filepath.Join(b.TempDir(), "c")
		start := time.Now()
		mustGit(b, "", append(append([]string{"clone", "-q", "--bare"}, extra...), from, dir)...)
		return time.Since(start)
	}
	reference := startSSHD(b, repo)
	clone(remote) // warm both caches once
	clone(repo, "--no-local")
	var viaSSH, local, viaSSHD time.Duration
	for b.Loop() {
		local += clone(repo, "--no-local")
		viaSSH += clone(remote)
		if reference != "" {
			viaSSHD += clone(reference)
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(viaSSH.Milliseconds())/n, "ssh-ms/clone")
	b.ReportMetric(float64(local.Milliseconds())/n, "local-ms/clone")
	b.ReportMetric(float64(viaSSH)/float64(local), "ssh/local")
	if reference != "" {
		b.ReportMetric(float64(viaSSHD.Milliseconds())/n, "sshd-ms/clone")
		b.ReportMetric(float64(viaSSHD)/float64(local), "sshd/local")
	}
}

// startSSHD starts OpenSSH's sshd on a free local port, letting the
// current OS user in with the tests' key of that name, and returns the
// clone URL of repo through it; "" (with a log line) when sshd is not
// installed or does not start. It stops when the benchmark ends.
func startSSHD(b *testing.B, repo string) string {
	b.Helper()
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		if _, statErr := os.Stat("/usr/sbin/sshd"); statErr != nil {
			b.Log("OpenSSH sshd not installed: no sshd reference")
			return ""
		}
		sshd = "/usr/sbin/sshd"
	}
	me, err := user.Current()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	hostKey := filepath.Join(dir, "host_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", hostKey).CombinedOutput(); err != nil {
		b.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	keys := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(keys, []byte(apptest.SSHKey(b, me.Username)+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	config := filepath.Join(dir, "sshd_config")
	if err := os.WriteFile(config, []byte(fmt.Sprintf("ListenAddress %s\nHostKey %s\nAuthorizedKeysFile %s\n"+
		"PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"+
		"PermitRootLogin prohibit-password\nPidFile none\n", addr, hostKey, keys)), 0o600); err != nil {
		b.Fatal(err)
	}
	if me.Uid == "0" {
		_ = os.MkdirAll("/run/sshd", 0o755) // sshd's privilege separation directory
	}
	cmd := exec.Command(sshd, "-D", "-e", "-f", config)
	var log bytes.Buffer
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		b.Logf("sshd did not start (%v): no sshd reference", err)
		return ""
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			_ = c.Close()
			break
		}
		if time.Now().After(deadline) {
			b.Logf("sshd did not listen: no sshd reference\n%s", log.String())
			return ""
		}
	}
	u := url.URL{Scheme: "ssh", User: url.User(me.Username), Host: addr, Path: repo}
	if out, err := git("", "ls-remote", u.String()); err != nil {
		b.Logf("sshd refused the clone (%v): no sshd reference\n%s\n%s", err, out, log.String())
		return ""
	}
	return u.String()
}

// seedCommits writes a history of n commits straight into the bare
// repository at repo with git fast-import: each commit changes one of a
// few hundred files.
func seedCommits(b *testing.B, repo string, n int) {
	b.Helper()
	cmd := exec.Command("git", "--git-dir="+repo, "fast-import", "--quiet")
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(in)
	at := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for i := 1; i <= n; i++ {
		content := fmt.Sprintf("line %d of the history\n", i)
		msg := fmt.Sprintf("commit %d\n", i)
		fmt.Fprintf(w, "commit refs/heads/master\nmark :%d\ncommitter Test <test@example.com> %d +0000\ndata %d\n%s", i, at+int64(i), len(msg), msg)
		if i > 1 {
			fmt.Fprintf(w, "from :%d\n", i-1)
		}
		fmt.Fprintf(w, "M 644 inline dir%d/file%d.txt\ndata %d\n%s\n", i%20, i%300, len(content), content)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := in.Close(); err != nil {
		b.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		b.Fatalf("fast-import: %v", err)
	}
	mustGit(b, "", "--git-dir="+repo, "repack", "-adq")
}
