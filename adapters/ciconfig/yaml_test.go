package ciconfig_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core/domain"
)

// TestParseSyntaxErrors checks that go-yaml's errors read as Psych's
// ("(<unknown>): <problem> <context> at line L column C"), which GitLab
// shows.
func TestParseSyntaxErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, src, want string }{
		{"key outside the mapping", "# one\n# two\nstages:\n  - build\n bad: x\n",
			"(<unknown>): did not find expected key while parsing a block mapping at line 3 column 1"},
		{"nested mapping", "job:\n  script:\n    - a\n   - b\n",
			"(<unknown>): did not find expected key while parsing a block mapping at line 2 column 3"},
		{"mapping values", "invalid: yaml: test",
			"(<unknown>): mapping values are not allowed in this context at line 1 column 14"},
		{"indented key", "a: b\nc: d\n e: f\n",
			"(<unknown>): mapping values are not allowed in this context at line 3 column 3"},
		{"sequence then key", "a:\n  - b\n  c: d\n",
			"(<unknown>): did not find expected '-' indicator while parsing a block collection at line 2 column 3"},
		{"unclosed flow sequence", "rspec:\n  script: rspec\n  only: [master\n",
			"(<unknown>): did not find expected ',' or ']' while parsing a flow sequence at line 3 column 9"},
		{"unclosed flow mapping", "a: {b: 1\n",
			"(<unknown>): did not find expected ',' or '}' while parsing a flow mapping at line 1 column 4"},
		{"unterminated quote", "a: 'unterminated\n",
			"(<unknown>): found unexpected end of stream while scanning a quoted scalar at line 1 column 4"},
		{"reserved character", "a: @foo\n",
			"(<unknown>): found character that cannot start any token while scanning for the next token at line 1 column 4"},
		{"tab", "a: b\n\tc: d\n",
			"(<unknown>): found a tab character that violates indentation at line 2 column 1"},
		{"recursive alias", "a: &x [*x]\n",
			"(<unknown>): anchor x contains an alias to itself at line 1 column 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := parseError(t, tc.src); got != tc.want {
				t.Errorf("error = %q\n want %q", got, tc.want)
			}
		})
	}
}

// TestParseAnchorsAndMerges checks YAML anchors, aliases and `<<` merges
// as Psych applies them.
func TestParseAnchorsAndMerges(t *testing.T) {
	t.Parallel()
	want := []domain.JobConfig{
		{Name: "job1", Stage: "build", When: "on_success", Spec: domain.JobSpec{Script: []string{"execute-script-for-job"}}},
		{Name: "job2", Stage: "build", When: "on_success", Spec: domain.JobSpec{Script: []string{"execute-script-for-job"}}},
	}
	for _, tc := range []struct{ name, src string }{
		{"template is a job", "job1: &JOBTMPL\n  stage: build\n  script: execute-script-for-job\n\njob2: *JOBTMPL\n"},
		{"template is a hidden job", ".template: &JOBTMPL\n  stage: build\n  script: execute-script-for-job\n\njob1: *JOBTMPL\n\njob2: *JOBTMPL\n"},
		{"job adds its own keys", ".template: &JOBTMPL\n  stage: build\n\njob1:\n  <<: *JOBTMPL\n  script: execute-script-for-job\n\njob2:\n  <<: *JOBTMPL\n  script: execute-script-for-job\n"},
		{"merge of several, the first winning", ".a: &a {stage: build}\n.b: &b {stage: deploy, script: execute-script-for-job}\njob1:\n  <<: [*a, *b]\njob2:\n  <<: [*a, *b]\n"},
		{"a later key overrides a merged one", ".t: &t {stage: test, script: nope}\njob1:\n  <<: *t\n  stage: build\n  script: execute-script-for-job\njob2:\n  <<: *t\n  stage: build\n  script: execute-script-for-job\n"},
		{"an alias of a scalar and a list", ".s: &s execute-script-for-job\n.st: &st build\njob1: {stage: *st, script: [*s]}\njob2: {stage: *st, script: *s}\n"},
		{"duplicate keys, the last winning", "job1:\n  stage: test\n  stage: build\n  script: execute-script-for-job\njob2:\n  stage: build\n  script: x\n  script: execute-script-for-job\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := mustParse(t, tc.src)
			if diff := cmp.Diff(want, got.Jobs); diff != "" {
				t.Errorf("jobs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseMergeIsPsychs checks Psych's order: a merge after a key
// overrides it, and `<<` of something else than mappings is an ordinary
// (here unknown) key.
func TestParseMergeIsPsychs(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, ".t: &t {stage: deploy}\njob:\n  stage: build\n  <<: *t\n  script: x\n")
	if got := job(t, cfg, "job").Stage; got != "deploy" {
		t.Errorf("stage = %q, want deploy (Psych merges in order)", got)
	}
	if got := parseError(t, ".s: &s [a]\njob:\n  <<: *s\n  script: x\n"); got != "jobs:job config contains unknown keys: <<" {
		t.Errorf("error = %q", got)
	}
	if got := parseError(t, "job:\n  '<<': {stage: build}\n  script: x\n"); got != "jobs:job config contains unknown keys: <<" {
		t.Errorf("quoted << error = %q", got)
	}
}

// TestParseScalarsAsPsych checks YAML 1.1 scalars the way GitLab reads
// them: yes/on are booleans, numbers become strings as Ruby writes them.
func TestParseScalarsAsPsych(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, `variables:
  INT: 42
  HEX: 0x1F
  OCTAL: 017
  UNDERSCORE: 1_000
  FLOAT: 1.50
  WHOLE: 2.0
  BIG: 12345678901234567890
  EXP: 1e3
  SMALL: 0.00001
  QUOTED: "yes"
  WORD: maybe
  1: one
rspec:
  script: x
  allow_failure: yes
  when: manual
other:
  script: x
  allow_failure: Off
`)
	want := []domain.Variable{
		{Key: "INT", Value: "42", Public: true},
		{Key: "HEX", Value: "31", Public: true},
		{Key: "OCTAL", Value: "15", Public: true},
		{Key: "UNDERSCORE", Value: "1000", Public: true},
		{Key: "FLOAT", Value: "1.5", Public: true},
		{Key: "WHOLE", Value: "2.0", Public: true},
		{Key: "BIG", Value: "12345678901234567890", Public: true},
		{Key: "EXP", Value: "1e3", Public: true},
		{Key: "SMALL", Value: "1.0e-05", Public: true},
		{Key: "QUOTED", Value: "yes", Public: true},
		{Key: "WORD", Value: "maybe", Public: true},
		{Key: "1", Value: "one", Public: true},
	}
	if diff := cmp.Diff(want, cfg.Variables); diff != "" {
		t.Errorf("variables (-want +got):\n%s", diff)
	}
	if !job(t, cfg, "rspec").AllowFailure || job(t, cfg, "other").AllowFailure {
		t.Errorf("allow_failure yes/Off not read as booleans: %+v", cfg.Jobs)
	}
}
