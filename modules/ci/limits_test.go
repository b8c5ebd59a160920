package ci_test

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
)

// TestConfigLimits: a configuration over the size limit, or one that
// expands aliases without end, is a failed pipeline with a clear error,
// never a 500 or a lost push; hostile refs are GitLab's 400.
func TestConfigLimits(t *testing.T) {
	t.Parallel()
	s := &server{}
	srv := apptest.New(t, apptest.With(fx.Populate(&s.bus, &s.blob)),
		apptest.Configure(func(c *config.Config) { c.CI.MaxConfigBytes = 4096 }))
	s.Server, s.Client = srv, srv.Client(t)
	pid := s.project("limits", "private")

	big := "t:\n  script: x\n# " + strings.Repeat("x", 5000) + "\n"
	s.commit(pid, "master", "big", map[string]string{".gitlab-ci.yml": big})
	p := s.pipeline(pid, apptest.ID(s.pipelines(pid, "")[0]))
	if p.Status != "failed" || p.YAMLErrors == nil || !strings.Contains(*p.YAMLErrors, "too big") {
		t.Fatalf("big config: %+v %v", p, p.YAMLErrors)
	}

	var lol strings.Builder
	lol.WriteString("a: &a [x, x, x, x, x, x, x, x, x, x]\n")
	for i, prev := 'b', 'a'; i <= 'k'; i, prev = i+1, i {
		fmt.Fprintf(&lol, "%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", i, i, prev, prev, prev, prev, prev, prev, prev, prev, prev, prev)
	}
	lol.WriteString("t:\n  script: x\n")
	s.commit(pid, "master", "laughs", map[string]string{".gitlab-ci.yml": lol.String()})
	p = s.pipeline(pid, apptest.ID(s.pipelines(pid, "")[0]))
	if p.Status != "failed" || p.YAMLErrors == nil || *p.YAMLErrors == "" {
		t.Fatalf("billion laughs: %+v", p)
	}

	for _, ref := range []string{"-x", "../../etc", "a..b", "%00", "refs/heads/master"} {
		r := s.Send("POST", fmt.Sprintf("/projects/%d/pipeline", pid), s.RootToken, apptest.Form("ref", ref))
		if r.Status != 400 {
			t.Errorf("ref %q: %d %s", ref, r.Status, r.Body)
		}
	}
}

// TestTenMegabyteConfig: a 10 MB .gitlab-ci.yml pushed over git with the
// default limits (1 MiB) makes a failed pipeline that says why; the push
// itself lands.
func TestTenMegabyteConfig(t *testing.T) {
	t.Parallel()
	s := &server{}
	srv := apptest.New(t, apptest.With(fx.Populate(&s.bus, &s.blob)))
	s.Server, s.Client = srv, srv.Client(t)
	pid := s.project("huge", "private")
	work := t.TempDir()
	apptest.Git(t, work, "init", "--quiet", "-b", "master")
	var big strings.Builder
	big.WriteString("build:\n  script: make\n")
	for big.Len() < 10<<20 {
		big.WriteString("# " + strings.Repeat("padding ", 16) + "\n")
	}
	if err := os.WriteFile(filepath.Join(work, ".gitlab-ci.yml"), []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	apptest.Git(t, work, "add", ".gitlab-ci.yml")
	apptest.Git(t, work, "commit", "--quiet", "-m", "huge ci")
	head := apptest.Git(t, work, "rev-parse", "HEAD")
	u, _ := url.Parse(s.URL + "/root/huge.git")
	u.User = url.UserPassword("root", s.RootToken)
	apptest.Git(t, work, "push", "--quiet", u.String(), "master")

	l := s.pipelines(pid, "")
	if len(l) != 1 {
		t.Fatalf("pipelines: %v", l)
	}
	p := s.pipeline(pid, apptest.ID(l[0]))
	if p.Status != "failed" || p.YAMLErrors == nil || !strings.Contains(*p.YAMLErrors, "too big") {
		t.Fatalf("10 MB config: %+v %v", p, p.YAMLErrors)
	}
	if got := s.Expect(200, "GET", fmt.Sprintf("/projects/%d/repository/branches/master", pid), s.RootToken, nil).Object(t); got["commit"].(map[string]any)["id"] != head {
		t.Fatalf("the push did not land: %v", got)
	}
}
