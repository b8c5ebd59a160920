package ci_test

import (
	"fmt"
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
