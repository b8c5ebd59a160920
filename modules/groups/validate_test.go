package groups

import "testing"

func TestNameErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"My Group", true},
		{"Ümlaut – dash_1.0", true},
		{"", false},
		{"  ", false},
		{"a/b", false},
		{"a@b", false},
		{"(paren)", false},
	} {
		if got := nameErrors(tc.name) == nil; got != tc.ok {
			t.Errorf("nameErrors(%q) ok = %v, want %v", tc.name, got, tc.ok)
		}
	}
}
