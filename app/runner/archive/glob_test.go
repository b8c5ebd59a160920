package archive

import (
	"context"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestMatchPath(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"a.txt", "a.txt", true},
		{"*.txt", "a.txt", true},
		{"*.txt", "d/a.txt", false},
		{"*", ".hidden", true},
		{"d/*", "d/x", true},
		{"d/*", "d/x/y", false},
		{"**", "a/b/c", true},
		{"**/c", "c", true},
		{"**/c", "a/b/c", true},
		{"a/**", "a", true},
		{"a/**", "a/b/c", true},
		{"a/**", "ab", false},
		{"a/**/c", "a/c", true},
		{"a/**/c", "a/x/y/c", true},
		{"a/**/c", "a/x/y/d", false},
		{"a**b", "axxb", true},
		{"a**b", "a/b", false},
		{"?", "a", true},
		{"?", "ab", false},
		{"[a-c]x", "bx", true},
		{"[!a-c]x", "bx", false},
		{"[^a-c]x", "dx", true},
		{`\*`, "*", true},
		{`\*`, "a", false},
		{"[", "[", false}, // malformed: matches nothing
	}
	for _, tc := range cases {
		m, err := newMatcher("/root", []string{tc.pattern})
		if err != nil {
			t.Fatal(err)
		}
		if got := m.match(tc.name); got != tc.want {
			t.Errorf("%q matches %q = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

func TestExpandBraces(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"a":               {"a"},
		"{a,b}":           {"a", "b"},
		"x/{a,b}/*.{c,d}": {"x/a/*.c", "x/b/*.c", "x/a/*.d", "x/b/*.d"},
		"{a,{b,c}}":       {"a", "b", "c"},
		"{a,}x":           {"ax", "x"},
		"{unbalanced":     {"{unbalanced"},
		`\{a,b}`:          {`\{a,b}`},
	}
	for in, want := range cases {
		got, err := expandBraces(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("expandBraces(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bomb := strings.Repeat("{a,b}", 30)
	if _, err := expandBraces(bomb); err == nil {
		t.Error("2^30 alternatives expanded")
	}
	if _, err := Create(context.Background(), io.Discard, t.TempDir(), []string{bomb}, nil, false); err == nil {
		t.Error("Create with a brace bomb: no error")
	}
	if _, err := Create(context.Background(), io.Discard, t.TempDir(), []string{"x"}, []string{bomb}, false); err == nil {
		t.Error("Create with a brace bomb in exclude: no error")
	}
}

func TestNormalizePattern(t *testing.T) {
	t.Parallel()
	root := filepath.FromSlash("/b/root")
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"a", "a", true},
		{"./a/", "a", true},
		{"a/../b", "b", true},
		{"/b/root/x/y", "x/y", true},
		{"/b/root", ".", true},
		{"/b/rootless/x", "", false},
		{"/etc/passwd", "", false},
		{"..", "", false},
		{"../x", "", false},
		{"a/../../x", "", false},
		{"", "", false},
		{"  ", "", false},
	}
	for _, tc := range cases {
		got, ok := normalizePattern(root, tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("normalizePattern(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
