package ci_test

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

// TestPipelinesFromGitPush: a push over HTTP of several refs makes one
// pipeline per branch and tag pushed, for the pushed head, by the pusher.
func TestPipelinesFromGitPush(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		pid := s.project("gitpush", "private")
		work := t.TempDir()
		apptest.Git(t, work, "init", "--quiet", "-b", "master")
		if err := os.WriteFile(filepath.Join(work, ".gitlab-ci.yml"), []byte("build:\n  script: make\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		apptest.Git(t, work, "add", ".gitlab-ci.yml")
		apptest.Git(t, work, "commit", "--quiet", "-m", "ci")
		first := apptest.Git(t, work, "rev-parse", "HEAD")
		apptest.Git(t, work, "commit", "--quiet", "--allow-empty", "-m", "second")
		second := apptest.Git(t, work, "rev-parse", "HEAD")
		apptest.Git(t, work, "tag", "-a", "v1", "-m", "release", first)

		u, err := url.Parse(s.URL + "/root/gitpush.git")
		if err != nil {
			t.Fatal(err)
		}
		u.User = url.UserPassword("root", s.RootToken)
		apptest.Git(t, work, "push", "--quiet", u.String(), "master", first+":refs/heads/stable", "v1")

		l := s.pipelines(pid, "?order_by=ref&sort=asc")
		var got []string
		for _, p := range l {
			got = append(got, p["ref"].(string)+"@"+p["sha"].(string)[:8]+"="+p["status"].(string))
		}
		want := []string{"master@" + second[:8] + "=pending", "stable@" + first[:8] + "=pending", "v1@" + first[:8] + "=pending"}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("pipelines %v, want %v", got, want)
		}
		p := s.pipeline(pid, apptest.ID(l[2]))
		if !p.Tag || p.User == nil || p.User.Username != "root" {
			t.Fatalf("tag pipeline %+v", p)
		}
		// deleting a branch makes none
		apptest.Git(t, work, "push", "--quiet", u.String(), ":refs/heads/stable")
		if n := len(s.pipelines(pid, "")); n != 3 {
			t.Fatalf("%d pipelines after a deletion", n)
		}
	})
}
