package ciconfig_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hearth-forge/hearth/adapters/ciconfig"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// seeds are realistic files (testdata/seeds), valid but for broken.yml.
func seeds(t testing.TB) map[string][]byte {
	paths, err := filepath.Glob("testdata/seeds/*.yml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no seeds: %v", err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = src
	}
	return out
}

// fuzzIncludes serves the file itself as self.yml (nested includes and
// loops), a fixed file as other.yml, and nothing else.
func fuzzIncludes(src []byte) func(context.Context, string) ([]byte, error) {
	return func(_ context.Context, path string) ([]byte, error) {
		switch path {
		case "self.yml":
			return src, nil
		case "other.yml", "ci/other.yml":
			return []byte("variables: {FROM_OTHER: x}\n.t: &t {stage: test}\nother: {<<: *t, script: [a, b]}\n"), nil
		}
		return nil, core.NotFound("File")
	}
}

func TestParseSeeds(t *testing.T) {
	t.Parallel()
	for name, src := range seeds(t) {
		cfg, err := ciconfig.New(ciconfig.Limits{}).Parse(context.Background(), src, fuzzIncludes(src))
		if name == "broken.yml" {
			if !errors.Is(err, core.ErrInvalid) {
				t.Errorf("%s: error = %v, want core.ErrInvalid", name, err)
			}
			continue
		}
		if name == "include.yml" {
			// It includes itself: GitLab's loop error.
			if got := invalid(t, err); got != "Include `{\"local\":\"self.yml\"}` was already included!" {
				t.Errorf("%s: error = %q", name, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		checkConfig(t, cfg)
	}
}

// FuzzParse feeds the parser anything: it must answer a configuration
// that holds together or core.ErrInvalid with a message, never panic, and
// the same way twice.
func FuzzParse(f *testing.F) {
	for _, src := range seeds(f) {
		f.Add(src)
	}
	for _, src := range []string{
		"include: [other.yml]\nrspec: {script: x, dependencies: [other]}\n",
		"a: &a [x, x]\nb: &b [*a, *a]\nrspec: {script: *b}\n",
		"rspec: {script: x, only: ['/^a(b/']}\n",
		".t: &t {stage: build}\nj: {<<: [*t, {when: manual}], script: x}\n",
		"variables: {A: 1.5e3, B: 0x1f, C: .inf, D: yes}\nr: {script: x}\n",
	} {
		f.Add([]byte(src))
	}
	limits := ciconfig.Limits{MaxBytes: 64 << 10, MaxNodes: 20_000, MaxJobs: 200, MaxIncludes: 5}
	f.Fuzz(func(t *testing.T, src []byte) {
		p := ciconfig.New(limits)
		cfg, err := p.Parse(context.Background(), src, fuzzIncludes(src))
		if err != nil {
			var e *core.Error
			if !errors.Is(err, core.ErrInvalid) || !errors.As(err, &e) || e.Msg == "" {
				t.Fatalf("error = %#v, want core.ErrInvalid with a message", err)
			}
			if len(e.Msg) > 20<<10 {
				t.Fatalf("message of %d bytes", len(e.Msg))
			}
			if utf8.Valid(src) && !utf8.ValidString(e.Msg) {
				t.Fatalf("message is not UTF-8: %q", e.Msg)
			}
		} else {
			checkConfig(t, cfg)
		}
		again, err2 := p.Parse(context.Background(), src, fuzzIncludes(src))
		if !reflect.DeepEqual(cfg, again) || (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error() {
			t.Fatalf("two parses differ: %v / %v", err, err2)
		}
	})
}

var refRegexp = regexp.MustCompile(`^/(.*)/([ismU]*)$`)

// checkConfig checks what the CI module relies on in a parsed
// configuration.
func checkConfig(t *testing.T, cfg *domain.PipelineConfig) {
	t.Helper()
	if cfg == nil || len(cfg.Jobs) == 0 {
		t.Fatalf("configuration without jobs: %+v", cfg)
	}
	names := map[string]bool{}
	for _, j := range cfg.Jobs {
		switch {
		case j.Name == "" || strings.HasPrefix(j.Name, ".") || names[j.Name]:
			t.Fatalf("job name %q", j.Name)
		case !slices.Contains(cfg.Stages, j.Stage):
			t.Fatalf("job %q in stage %q, not in %v", j.Name, j.Stage, cfg.Stages)
		case len(j.Spec.Script) == 0:
			t.Fatalf("job %q without script", j.Name)
		case !slices.Contains([]string{domain.WhenOnSuccess, domain.WhenOnFailure, domain.WhenAlways, domain.WhenManual}, j.When):
			t.Fatalf("job %q when %q", j.Name, j.When)
		case j.Spec.Retry < 0 || j.Spec.Retry > 2:
			t.Fatalf("job %q retry %d", j.Name, j.Spec.Retry)
		}
		names[j.Name] = true
		for _, p := range []*domain.RefPolicy{j.Only, j.Except} {
			if p == nil {
				continue
			}
			if len(p.Refs) == 0 {
				t.Fatalf("job %q: empty policy", j.Name)
			}
			for _, r := range p.Refs {
				if m := refRegexp.FindStringSubmatch(r); m != nil {
					pattern := m[1]
					if m[2] != "" {
						pattern = "(?" + m[2] + ")" + pattern
					}
					if _, err := regexp.Compile(pattern); err != nil {
						t.Fatalf("job %q: ref %q does not compile: %v", j.Name, r, err)
					}
				}
			}
		}
		if j.Spec.CoverageRegex != "" {
			if _, err := regexp.Compile(j.Spec.CoverageRegex); err != nil {
				t.Fatalf("job %q: coverage %q: %v", j.Name, j.Spec.CoverageRegex, err)
			}
		}
		if a := j.Spec.Artifacts; a != nil && !slices.Contains([]string{domain.WhenOnSuccess, domain.WhenOnFailure, domain.WhenAlways}, a.When) {
			t.Fatalf("job %q: artifacts when %q", j.Name, a.When)
		}
	}
	for _, j := range cfg.Jobs {
		for _, d := range j.Spec.Dependencies {
			if !names[d] {
				t.Fatalf("job %q depends on unknown %q", j.Name, d)
			}
		}
	}
}
