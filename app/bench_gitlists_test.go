package app_test

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
)

// BenchmarkGitLists measures the branch list and the first page of commits
// (issue 14, item 3) on the repository shape (1,419 commits, 13
// branches, 1,148 tags) and on the same shape with 20,000 commits: the two
// must cost about the same (nothing per request grows with history).
//
//	go test ./app -run '^$' -bench GitLists -benchtime 2000x
func BenchmarkGitLists(b *testing.B) {
	for _, commits := range []int{1419, 20000} {
		template := filepath.Join(b.TempDir(), "template.git")
		writeListsRepo(b, template, commits)
		for _, backend := range []string{"gitcli"} { // gogit walks far slower; see BenchmarkRepository
			b.Run(fmt.Sprintf("%s/%d", backend, commits), func(b *testing.B) {
				srv := apptest.New(b, apptest.Configure(func(c *config.Config) { c.Git.Backend = backend }))
				var p struct{ ID int64 }
				srv.JSON(b, "POST", "/projects", srv.RootToken, url.Values{"name": {"lists"}, "visibility": {"private"}}, 201, &p)
				dir := srv.RepoDir(p.ID)
				if err := os.RemoveAll(dir); err != nil {
					b.Fatal(err)
				}
				if out, err := exec.Command("cp", "-a", template, dir).CombinedOutput(); err != nil {
					b.Fatalf("copy template: %v: %s", err, out)
				}
				base := fmt.Sprintf("/projects/%d/repository", p.ID)
				get := func(b *testing.B, path string) {
					b.ReportAllocs()
					// Warm the caches keyed by commit SHA (counts, merged
					// flags): their one-off walk is not the steady cost.
					srv.Do(b, "GET", path, srv.RootToken, nil)
					for b.Loop() {
						resp, _ := srv.Do(b, "GET", path, srv.RootToken, nil)
						if resp.StatusCode != http.StatusOK {
							b.Fatalf("GET %s: %d", path, resp.StatusCode)
						}
					}
				}
				// parallel is 16 requests in flight, as the wrk -c16:
				// 1e9 / ns/op is the throughput in requests per second.
				parallel := func(b *testing.B, path string) {
					srv.Do(b, "GET", path, srv.RootToken, nil)
					b.SetParallelism(8)
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							resp, _ := srv.Do(b, "GET", path, srv.RootToken, nil)
							if resp.StatusCode != http.StatusOK {
								b.Errorf("GET %s: %d", path, resp.StatusCode)
							}
						}
					})
				}
				b.Run("Branches", func(b *testing.B) { get(b, base+"/branches") })
				b.Run("CommitsPage1", func(b *testing.B) { get(b, base+"/commits?per_page=20") })
				b.Run("BranchesParallel16", func(b *testing.B) { parallel(b, base+"/branches") })
				b.Run("CommitsPage1Parallel16", func(b *testing.B) { parallel(b, base+"/commits?per_page=20") })
			})
		}
	}
}

// writeListsRepo writes the repository shape: commits linear
// commits, 12 branches besides master, 1,148 tags (packed).
func writeListsRepo(tb testing.TB, dir string, commits int) {
	tb.Helper()
	writeBenchRepo(tb, dir, commits, 200, 12)
	shas := strings.Fields(gitOut(tb, dir, "rev-list", "master"))
	var in strings.Builder
	for i := 0; i < 1148; i++ {
		fmt.Fprintf(&in, "create refs/tags/v%d.%d %s\n", i/100, i%100, shas[i%len(shas)])
	}
	cmd := exec.Command("git", "-C", dir, "update-ref", "--stdin")
	cmd.Env = isolatedGitEnv(tb)
	cmd.Stdin = strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("tags: %v: %s", err, out)
	}
	gitOut(tb, dir, "pack-refs", "--all")
}
