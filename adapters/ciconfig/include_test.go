package ciconfig_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/adapters/ciconfig"
	"github.com/hearth-forge/hearth/core/domain"
)

// TestParseInclude merges local files as GitLab does: the included files
// in order, then the including file on top, deeply.
func TestParseInclude(t *testing.T) {
	t.Parallel()
	included := map[string]string{
		"ci/base.yml":   "variables:\n  A: base\n  B: base\nbefore_script: [setup]\n.tmpl: &t\n  stage: build\nbuild:\n  <<: *t\n  script: make\n",
		"ci/test.yml":   "include: ci/nested.yml\nrspec:\n  script: rspec\n  tags: [docker]\n",
		"ci/nested.yml": "variables:\n  B: nested\nlint:\n  script: lint\n",
	}
	src := "include:\n  - /ci/base.yml\n  - null\n  - local: ci/test.yml\nvariables:\n  C: main\nrspec:\n  tags: [linux]\n"
	cfg, err := parseWith(t, ciconfig.Limits{}, src, included)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"build", "lint", "rspec"}, jobNames(cfg)); diff != "" {
		t.Errorf("jobs (-want +got):\n%s", diff)
	}
	wantVars := []domain.Variable{{Key: "A", Value: "base", Public: true}, {Key: "B", Value: "nested", Public: true}, {Key: "C", Value: "main", Public: true}}
	if diff := cmp.Diff(wantVars, cfg.Variables); diff != "" {
		t.Errorf("variables (-want +got):\n%s", diff)
	}
	rspec := job(t, cfg, "rspec")
	if diff := cmp.Diff([]string{"linux"}, rspec.Tags); diff != "" {
		t.Errorf("rspec tags, the main file's winning (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"rspec"}, rspec.Spec.Script); diff != "" {
		t.Errorf("rspec script, deep-merged from the include (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"setup"}, rspec.Spec.BeforeScript); diff != "" {
		t.Errorf("before_script from the include (-want +got):\n%s", diff)
	}
	if got := job(t, cfg, "build").Stage; got != "build" {
		t.Errorf("build stage from the included anchor = %q", got)
	}
}

func TestParseIncludeString(t *testing.T) {
	t.Parallel()
	cfg, err := parseWith(t, ciconfig.Limits{}, "include: '/templates/.gitlab-ci-template.yml'\n", map[string]string{
		"templates/.gitlab-ci-template.yml": "rspec: {script: x}\n",
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"rspec"}, jobNames(cfg)); diff != "" {
		t.Errorf("jobs (-want +got):\n%s", diff)
	}
}

func TestParseIncludeErrors(t *testing.T) {
	t.Parallel()
	included := map[string]string{
		"empty.yml":   "  \n",
		"list.yml":    "- a\n",
		"ok.yml":      "lint: {script: x}\n",
		"broken.yml":  "a:\n  b: c\n d: e\n",
		"invalid.yml": "rspec:\n  script: x\n  when: later\n",
		"loop-a.yml":  "include: loop-b.yml\n",
		"loop-b.yml":  "include: loop-a.yml\n",
		"big.yml":     "a: " + string(make([]byte, 200)) + "\n",
	}
	for _, tc := range []struct{ name, src, want string }{
		{"missing", "include: missing.yml\n", "Local file `missing.yml` does not exist!"},
		{"empty", "include: empty.yml\n", "Local file `empty.yml` is empty!"},
		{"not yaml", "include: script.sh\n", "Included file `script.sh` does not have YAML extension!"},
		{"not a mapping", "include: list.yml\n", "Included file `list.yml` does not have valid YAML syntax!"},
		{"syntax error", "include: broken.yml\n", "`broken.yml`: (<unknown>): did not find expected key while parsing a block mapping at line 1 column 1"},
		{"invalid job", "include: invalid.yml\n", "jobs:rspec when should be on_success, on_failure, always or manual"},
		{"loop", "include: loop-a.yml\n", "Include `{\"local\":\"loop-a.yml\"}` was already included!"},
		{"twice", "include: [ok.yml, /ok.yml]\n", "Include `{\"local\":\"/ok.yml\"}` was already included!"},
		{"outside the repository", "include: ../../etc/passwd.yml\n", "Local file `../../etc/passwd.yml` does not exist!"},
		{"remote", "include: https://example.com/ci.yml\n", "Include `https://example.com/ci.yml` is a remote file: only local files can be included"},
		{"template", "include:\n  template: Auto-DevOps.gitlab-ci.yml\n", "Include `{\"template\":\"Auto-DevOps.gitlab-ci.yml\"}` is not supported: only local files can be included"},
		{"two accessors", "include:\n  local: a.yml\n  remote: https://example.com/b.yml\n", "Include `{\"local\":\"a.yml\",\"remote\":\"https://example.com/b.yml\"}` needs to match exactly one accessor!"},
		{"no accessor", "include:\n  - where: a.yml\n", "Include `{\"where\":\"a.yml\"}` needs to match exactly one accessor!"},
		{"local not a string", "include:\n  - local: [a.yml]\n", "Included file `[\"a.yml\"]` needs to be a string"},
		{"not a string", "include: [1]\n", "Included file `1` needs to be a string"},
		{"include a number", "include: 1\n", "include config should be a string or an array"},
		{"too big", "include: big.yml\n", "Included file `big.yml` is too big: 204 bytes, the limit is 100 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseWith(t, ciconfig.Limits{MaxBytes: 100}, tc.src+"rspec: {script: x}\n", included)
			if got := invalid(t, err); got != tc.want {
				t.Errorf("error = %q\n want %q", got, tc.want)
			}
		})
	}
}

// TestParseIncludeLimit bounds nested includes: a chain of 60 files stops
// at GitLab's 50.
func TestParseIncludeLimit(t *testing.T) {
	t.Parallel()
	included := map[string]string{}
	for i := 0; i < 60; i++ {
		included[fmt.Sprintf("f%d.yml", i)] = fmt.Sprintf("include: f%d.yml\n", i+1)
	}
	_, err := parseWith(t, ciconfig.Limits{}, "include: f0.yml\nrspec: {script: x}\n", included)
	if got, want := invalid(t, err), "Maximum of 50 nested includes are allowed!"; got != want {
		t.Errorf("error = %q, want %q", got, want)
	}
	_, err = parseWith(t, ciconfig.Limits{MaxIncludes: 3}, "include: [f50.yml, f55.yml]\nrspec: {script: x}\n", included)
	if got, want := invalid(t, err), "Maximum of 3 nested includes are allowed!"; got != want {
		t.Errorf("error = %q, want %q", got, want)
	}
}

// TestParseIncludeReadError passes an error of the callback through: it
// is not the file's fault.
func TestParseIncludeReadError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	_, err := ciconfig.New(ciconfig.Limits{}).Parse(context.Background(), []byte("include: a.yml\nrspec: {script: x}\n"),
		func(context.Context, string) ([]byte, error) { return nil, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("error = %v, want boom", err)
	}
	_, err = ciconfig.New(ciconfig.Limits{}).Parse(context.Background(), []byte("include: a.yml\nrspec: {script: x}\n"), nil)
	if got, want := invalid(t, err), "Local file `a.yml` does not exist!"; got != want {
		t.Errorf("without a callback: error = %q, want %q", got, want)
	}
}
