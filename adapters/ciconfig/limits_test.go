package ciconfig_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/adapters/ciconfig"
)

// billionLaughs is the classic: nine levels of nine aliases, 9^9 strings
// once expanded, in a few hundred bytes.
func billionLaughs(use string) string {
	var b strings.Builder
	b.WriteString(`a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for c := 'b'; c <= 'i'; c++ {
		p := string(c - 1)
		fmt.Fprintf(&b, "%c: &%c [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", c, c, p, p, p, p, p, p, p, p, p)
	}
	b.WriteString(use)
	return b.String()
}

// TestParseBillionLaughs refuses alias bombs quickly, in little memory.
// It runs alone (not parallel) so that the memory it counts is its own.
func TestParseBillionLaughs(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"in a variable", billionLaughs("rspec: {script: x, variables: {A: *i}}\n")},
		{"in a script", billionLaughs("rspec: {script: *i}\n")},
		{"unused", billionLaughs("rspec: {script: x}\n")},
		{"through merge keys", mergeBomb()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := parseWith(t, ciconfig.Limits{}, tc.src, nil)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			want := "The parsed YAML is too big: more than 250000 nodes once aliases are expanded"
			if got := invalid(t, err); got != want {
				t.Errorf("error = %q, want %q", got, want)
			}
			if elapsed > 2*time.Second {
				t.Errorf("refusing took %v", elapsed)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 10<<20 {
				t.Errorf("refusing allocated %d bytes", alloc)
			}
		})
	}
}

// mergeBomb grows through `<<` merges of mappings that merge the level
// below under new keys.
func mergeBomb() string {
	var b strings.Builder
	b.WriteString(".l0: &l0 {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8}\n")
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, ".l%d: &l%d {x: *l%d, y: *l%d, z: *l%d, w: *l%d, <<: *l%d}\n", i, i, i-1, i-1, i-1, i-1, i-1)
	}
	b.WriteString("rspec: {script: x, cache: *l12}\n")
	return b.String()
}

// TestParseLimits refuses, with a clear error, what is over a limit.
func TestParseLimits(t *testing.T) {
	t.Parallel()
	tenMB := "rspec:\n  script:\n" + strings.Repeat("    - echo 'a line of a very long script that goes on and on'\n", 10<<20/60)
	deep := "rspec:\n  script: x\n  variables: " + strings.Repeat("[", 150) + strings.Repeat("]", 150) + "\n"
	for _, tc := range []struct {
		name   string
		limits ciconfig.Limits
		src    string
		want   string
	}{
		{"10 MB file", ciconfig.Limits{}, tenMB,
			fmt.Sprintf("The configuration file is too big: %d bytes, the limit is 1048576 bytes", len(tenMB))},
		{"configured size", ciconfig.Limits{MaxBytes: 10}, "rspec: {script: x}\n",
			"The configuration file is too big: 19 bytes, the limit is 10 bytes"},
		{"depth", ciconfig.Limits{}, deep, "The parsed YAML is too deep: more than 100 levels of nesting"},
		{"depth past go-yaml's", ciconfig.Limits{}, "a: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n",
			"The parsed YAML is too deep: more than 100 levels of nesting"},
		{"nodes", ciconfig.Limits{MaxNodes: 10}, "rspec: {script: [a, b, c, d, e, f, g]}\n",
			"The parsed YAML is too big: more than 10 nodes once aliases are expanded"},
		{"nodes of includes count", ciconfig.Limits{MaxNodes: 12}, "include: a.yml\nrspec: {script: [a, b, c]}\n",
			"`a.yml`: The parsed YAML is too big: more than 12 nodes once aliases are expanded"},
		{"jobs", ciconfig.Limits{MaxJobs: 2}, "a: {script: x}\nb: {script: x}\nc: {script: x}\n",
			"jobs config contains too many jobs: 3, the limit is 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseWith(t, tc.limits, tc.src, map[string]string{"a.yml": "lint: {script: [a, b, c]}\n"})
			if got := invalid(t, err); got != tc.want {
				t.Errorf("error = %q\n want %q", got, tc.want)
			}
		})
	}
}

// TestParseWithinLimits accepts what is at a limit.
func TestParseWithinLimits(t *testing.T) {
	t.Parallel()
	src := "rspec: {script: x}\n"
	if _, err := parseWith(t, ciconfig.Limits{MaxBytes: int64(len(src)), MaxJobs: 1, MaxNodes: 5}, src, nil); err != nil {
		t.Fatalf("Parse at the limits: %v", err)
	}
	var jobs strings.Builder
	for i := 0; i < ciconfig.DefaultMaxJobs; i++ {
		fmt.Fprintf(&jobs, "job%d: {script: x}\n", i)
	}
	cfg, err := parseWith(t, ciconfig.Limits{}, jobs.String(), nil)
	if err != nil || len(cfg.Jobs) != ciconfig.DefaultMaxJobs {
		t.Fatalf("Parse of %d jobs: %v", ciconfig.DefaultMaxJobs, err)
	}
}
