package domain

import "testing"

func TestProtection(t *testing.T) {
	rules := []ProtectedBranch{{Name: "*-stable", PushAccessLevel: Developer}, {Name: "release/*"}, {Name: "master"}, {Name: "9-0-stable"}}
	cases := []struct {
		branch string
		want   string // "" = not protected
	}{
		{"master", "master"},
		{"9-0-stable", "9-0-stable"}, // an exact name wins over the wildcard before it
		{"8-0-stable", "*-stable"},
		{"release/1/2", "release/*"}, // "*" crosses slashes
		{"release", ""},
		{"masterx", ""},
		{"-stable", "*-stable"},
		{"stable", ""},
	}
	for _, c := range cases {
		rule, ok := Protection(rules, c.branch)
		if got := map[bool]string{true: rule.Name, false: ""}[ok]; got != c.want {
			t.Errorf("Protection(%q) = %q, want %q", c.branch, got, c.want)
		}
	}
}
