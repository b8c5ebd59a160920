package app_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
)

// Sizes of the benchmark repository (issue 4): a long history over a wide
// tree, and many branches.
const (
	benchCommits  = 20000
	benchFiles    = 5000
	benchBranches = 1000
)

// BenchmarkRepository measures the repository API and git over HTTP on a
// repository with 20,000 commits, 5,000 files and 1,000 branches, for each
// git backend:
//
//	go test ./app -run '^$' -bench Repository -benchtime 200x
func BenchmarkRepository(b *testing.B) {
	template := buildBenchRepo(b)
	for _, backend := range []string{"gitcli", "gogit"} {
		b.Run(backend, func(b *testing.B) {
			srv := apptest.New(b, apptest.Configure(func(c *config.Config) { c.Git.Backend = backend }))
			var p struct{ ID int64 }
			srv.JSON(b, "POST", "/projects", srv.RootToken, url.Values{"name": {"bench"}, "visibility": {"private"}}, 201, &p)
			dir := srv.RepoDir(p.ID)
			if err := os.RemoveAll(dir); err != nil {
				b.Fatal(err)
			}
			if out, err := exec.Command("cp", "-a", template, dir).CombinedOutput(); err != nil {
				b.Fatalf("copy template: %v: %s", err, out)
			}
			base := fmt.Sprintf("/projects/%d/repository", p.ID)
			get := func(b *testing.B, path string) {
				b.Helper()
				b.ReportAllocs()
				for b.Loop() {
					resp, _ := srv.Do(b, "GET", path, srv.RootToken, nil)
					if resp.StatusCode != http.StatusOK {
						b.Fatalf("GET %s: %d", path, resp.StatusCode)
					}
				}
			}
			b.Run("CommitsPage1", func(b *testing.B) { get(b, base+"/commits?per_page=20") })
			b.Run("CommitsPage50", func(b *testing.B) { get(b, base+"/commits?per_page=20&page=50") })
			b.Run("TreeRoot", func(b *testing.B) { get(b, base+"/tree") })
			b.Run("RawFile", func(b *testing.B) { get(b, base+"/files/"+url.PathEscape("d042/f0042.txt")+"/raw?ref=master") })
			b.Run("Branches1000", func(b *testing.B) { get(b, base+"/branches?per_page=100") })
			b.Run("Clone", func(b *testing.B) {
				u, _ := url.Parse(srv.URL)
				u.User = url.UserPassword("root", srv.RootToken)
				u.Path = "/root/bench.git"
				for b.Loop() {
					dst := filepath.Join(b.TempDir(), "clone.git")
					cmd := exec.Command("git", "clone", "--quiet", "--bare", u.String(), dst)
					cmd.Env = isolatedGitEnv(b)
					if out, err := cmd.CombinedOutput(); err != nil {
						b.Fatalf("clone: %v: %s", err, out)
					}
				}
			})
		})
	}
}

// BenchmarkClone20kCommits clones a repository of 20,000 commits (500
// files, 10 branches) over smart HTTP from each git backend, and locally
// with git clone --no-local (git's own pack-objects, no HTTP) as the
// yardstick; it reports each clone's milliseconds and the ratios:
//
//	go test ./app -run '^$' -bench Clone20k -benchtime 3x
func BenchmarkClone20kCommits(b *testing.B) {
	template := filepath.Join(b.TempDir(), "template.git")
	writeBenchRepo(b, template, benchCommits, 500, 10)
	remotes := map[string]string{}
	for _, backend := range []string{"gitcli", "gogit"} {
		srv := apptest.New(b, apptest.Configure(func(c *config.Config) {
			c.Git.Backend = backend
			c.Log.Level = "warn"
		}))
		var p struct{ ID int64 }
		srv.JSON(b, "POST", "/projects", srv.RootToken, url.Values{"name": {"big"}, "visibility": {"private"}}, 201, &p)
		dir := srv.RepoDir(p.ID)
		if err := os.RemoveAll(dir); err != nil {
			b.Fatal(err)
		}
		if out, err := exec.Command("cp", "-a", template, dir).CombinedOutput(); err != nil {
			b.Fatalf("copy template: %v: %s", err, out)
		}
		u, _ := url.Parse(srv.URL)
		u.User = url.UserPassword("root", srv.RootToken)
		u.Path = "/root/big.git"
		remotes[backend] = u.String()
	}
	clone := func(from string, extra ...string) time.Duration {
		dst := filepath.Join(b.TempDir(), "clone.git")
		cmd := exec.Command("git", append(append([]string{"clone", "--quiet", "--bare"}, extra...), from, dst)...)
		cmd.Env = isolatedGitEnv(b)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("clone %s: %v: %s", from, err, out)
		}
		took := time.Since(start)
		if got := strings.TrimSpace(gitOut(b, dst, "rev-list", "--count", "master")); got != fmt.Sprint(benchCommits) {
			b.Fatalf("clone of %s has %s commits", from, got)
		}
		return took
	}
	var local, cli, gogit time.Duration
	for b.Loop() {
		local += clone(template, "--no-local")
		cli += clone(remotes["gitcli"])
		gogit += clone(remotes["gogit"])
	}
	n := float64(b.N)
	b.ReportMetric(float64(local.Milliseconds())/n, "local-ms/clone")
	b.ReportMetric(float64(cli.Milliseconds())/n, "gitcli-ms/clone")
	b.ReportMetric(float64(gogit.Milliseconds())/n, "gogit-ms/clone")
	b.ReportMetric(float64(gogit)/float64(cli), "gogit/gitcli")
	b.ReportMetric(float64(gogit)/float64(local), "gogit/local")
	b.ReportMetric(float64(cli)/float64(local), "gitcli/local")
}

// TestBenchRepoShape checks the benchmark repository is what the benchmark
// claims (so the numbers mean what the note says), on a smaller scale.
func TestBenchRepoShape(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "shape.git")
	writeBenchRepo(t, dir, 300, 120, 40)
	count := strings.TrimSpace(gitOut(t, dir, "rev-list", "--count", "master"))
	if count != "300" {
		t.Errorf("commits: %s, want 300", count)
	}
	files := strings.Count(gitOut(t, dir, "ls-tree", "-r", "--name-only", "master"), "\n")
	if files != 120 {
		t.Errorf("files: %d, want 120", files)
	}
	branches := strings.Count(gitOut(t, dir, "for-each-ref", "refs/heads/feature/"), "\n")
	if branches != 40 {
		t.Errorf("branches: %d, want 40", branches)
	}
	if out, err := exec.Command("git", "-C", dir, "fsck", "--strict").CombinedOutput(); err != nil {
		t.Errorf("fsck: %v: %s", err, out)
	}
}

// buildBenchRepo writes the full-size repository once per benchmark run.
func buildBenchRepo(b *testing.B) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "template.git")
	writeBenchRepo(b, dir, benchCommits, benchFiles, benchBranches)
	return dir
}

// writeBenchRepo creates a bare repository with git fast-import: the first
// commit adds every file (50 directories), each later commit changes one
// file; branches point at commits spread over the history, master at the
// newest.
func writeBenchRepo(tb testing.TB, dir string, commits, files, branches int) {
	tb.Helper()
	if out, err := exec.Command("git", "init", "--quiet", "--bare", "--initial-branch=master", dir).CombinedOutput(); err != nil {
		tb.Fatalf("init: %v: %s", err, out)
	}
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet")
	cmd.Env = isolatedGitEnv(tb)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(stdin, 1<<20)
	path := func(i int) string { return fmt.Sprintf("d%03d/f%04d.txt", i%50, i) }
	data := func(s string) { fmt.Fprintf(w, "data %d\n%s\n", len(s), s) }
	const start = 1500000000
	for c := 1; c <= commits; c++ {
		fmt.Fprintf(w, "commit refs/heads/master\nmark :%d\n", c)
		fmt.Fprintf(w, "author Bench Author <bench@example.com> %d +0000\n", start+c*60)
		fmt.Fprintf(w, "committer Bench Author <bench@example.com> %d +0000\n", start+c*60)
		data(fmt.Sprintf("Commit number %d\n\nChanges one file.", c))
		if c > 1 {
			fmt.Fprintf(w, "from :%d\n", c-1)
		}
		if c == 1 {
			for i := 0; i < files; i++ {
				fmt.Fprintf(w, "M 100644 inline %s\n", path(i))
				data(strings.Repeat(fmt.Sprintf("line of file %d\n", i), 20))
			}
		} else {
			i := c % files
			fmt.Fprintf(w, "M 100644 inline %s\n", path(i))
			data(strings.Repeat(fmt.Sprintf("line of file %d\n", i), 20) + fmt.Sprintf("changed by commit %d\n", c))
		}
		w.WriteString("\n")
	}
	for i := 0; i < branches; i++ {
		fmt.Fprintf(w, "reset refs/heads/feature/b%04d\nfrom :%d\n\n", i, 1+i*(commits-1)/max(branches, 1))
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if _, err := io.WriteString(stdin, "done\n"); err != nil {
		tb.Fatal(err)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		tb.Fatalf("fast-import: %v: %s", err, stderr.String())
	}
	if out, err := exec.Command("git", "-C", dir, "repack", "-a", "-d", "-q").CombinedOutput(); err != nil {
		tb.Fatalf("repack: %v: %s", err, out)
	}
}

// isolatedGitEnv keeps the developer's git configuration out of tests.
func isolatedGitEnv(tb testing.TB) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + tb.TempDir(),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"LC_ALL=C",
	}
}

func gitOut(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = isolatedGitEnv(tb)
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}
