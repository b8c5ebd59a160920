package projects

import "testing"

func TestParameterize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"My Project":          "my-project",
		"  Hello,   World!  ": "hello-world",
		"a -- b":              "a-b",
		"snake_case_Name":     "snake_case_name",
		"version 1.2.3":       "version-1-2-3",
		"Crème Brûlée":        "creme-brulee",
		"Straße":              "strasse",
		"日本":                  "",
		"--x--":               "x",
		"Go!Go!Go":            "go-go-go",
		"ALLCAPS":             "allcaps",
		"tabs\tand\nnewlines": "tabs-and-newlines",
	} {
		if got := Parameterize(in); got != want {
			t.Errorf("Parameterize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPathAndNameRules(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"a", "a.b", "a-b", "_x", ".hidden", "x.", "A1_b-c.d"} {
		if msgs := pathErrors(ok); len(msgs) != 0 {
			t.Errorf("path %q: %v", ok, msgs)
		}
	}
	for _, bad := range []string{"", "-a", "a b", "a/b", "x.git", "X.GIT", "y.atom", "é", "new", "tree"} {
		if msgs := pathErrors(bad); len(msgs) == 0 {
			t.Errorf("path %q accepted", bad)
		}
	}
	for _, ok := range []string{"a", "My project", "Projet é", "v1.0", "_under", "emoji 🚀", "dash-en–dash"} {
		if msgs := nameErrors(ok); len(msgs) != 0 {
			t.Errorf("name %q: %v", ok, msgs)
		}
	}
	for _, bad := range []string{"", " ", "-x", ".x", "a/b", "a:b", "a!"} {
		if msgs := nameErrors(bad); len(msgs) == 0 {
			t.Errorf("name %q accepted", bad)
		}
	}
	for _, ok := range []string{"main", "feature/x", "v1.0", "release-2017"} {
		if !validBranch(ok) {
			t.Errorf("branch %q refused", ok)
		}
	}
	for _, bad := range []string{"", "-x", "a..b", "a b", "x.lock", "a/", "/a", "a//b", "a@{b", "a~1", "a^", "a:b", ".x", "a/.b", "@"} {
		if validBranch(bad) {
			t.Errorf("branch %q accepted", bad)
		}
	}
}
