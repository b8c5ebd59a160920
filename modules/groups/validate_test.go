package groups

import "testing"

func TestPathErrors(t *testing.T) {
	for _, tc := range []struct {
		path     string
		topLevel bool
		ok       bool
	}{
		{"group", true, true},
		{"my-group.v2_x", true, true},
		{"a", true, true},
		{"_a", true, true},
		{".a", true, true},
		{"", true, false},
		{"-a", true, false},
		{"a.", true, false},
		{"a.git", true, false},
		{"a.ATOM", true, false},
		{"a b", true, false},
		{"a/b", true, false},
		{"ümlaut", true, false},
		{"admin", true, false},
		{"Groups", true, false},
		{"admin", false, true},
		{"edit", false, false},
		{"edit", true, true},
	} {
		if got := pathErrors(tc.path, tc.topLevel) == nil; got != tc.ok {
			t.Errorf("pathErrors(%q, %v) ok = %v, want %v (%v)", tc.path, tc.topLevel, got, tc.ok, pathErrors(tc.path, tc.topLevel))
		}
	}
	long := make([]byte, 256)
	for i := range long {
		long[i] = 'a'
	}
	if msgs := pathErrors(string(long), true); len(msgs) != 1 || msgs[0] != "is too long (maximum is 255 characters)" {
		t.Errorf("long path: %v", msgs)
	}
}

func TestNameErrors(t *testing.T) {
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
