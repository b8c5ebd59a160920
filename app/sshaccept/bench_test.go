package sshaccept_test

import (
	"bufio"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
)

// BenchmarkSSHClone20kCommits clones a 20,000-commit repository over SSH
// (OpenSSH, Hearth's SSH server, git upload-pack) and, in the same loop,
// with a local `git clone --no-local` of the same bare repository (git's
// own pack transfer without any server); issue 16 asks for the SSH clone
// within 1.1x of the local one. On the 2-core development machine it was
// about 1.27x (about 890 ms against 700) when written: the pack took
// about 0.35-0.45 s to cross instead of 0.22 s, as encryption at both ends
// and two more processes compete with pack-objects and index-pack for the
// two cores, and signing in cost about 35 ms. On 2026-11-28 the same VM
// measured 2.6x (1,600 ms against 630) with that code and with today's,
// while a clone over HTTP was 0.95x: the SSH path has a cost to find.
// Run it with:
//
//	go test ./app/sshaccept -run '^$' -bench SSHClone -benchtime 5x
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
	clone(remote) // warm both caches once
	clone(repo, "--no-local")
	var viaSSH, local time.Duration
	for b.Loop() {
		local += clone(repo, "--no-local")
		viaSSH += clone(remote)
	}
	n := float64(b.N)
	b.ReportMetric(float64(viaSSH.Milliseconds())/n, "ssh-ms/clone")
	b.ReportMetric(float64(local.Milliseconds())/n, "local-ms/clone")
	b.ReportMetric(float64(viaSSH)/float64(local), "ssh/local")
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
