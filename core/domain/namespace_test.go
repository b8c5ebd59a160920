package domain

import "testing"

func TestNamespacePathErrors(t *testing.T) {
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
		if got := NamespacePathErrors(tc.path, tc.topLevel) == nil; got != tc.ok {
			t.Errorf("NamespacePathErrors(%q, %v) ok = %v, want %v (%v)", tc.path, tc.topLevel, got, tc.ok, NamespacePathErrors(tc.path, tc.topLevel))
		}
	}
	long := make([]byte, 256)
	for i := range long {
		long[i] = 'a'
	}
	if msgs := NamespacePathErrors(string(long), true); len(msgs) != 1 || msgs[0] != "is too long (maximum is 255 characters)" {
		t.Errorf("long path: %v", msgs)
	}
}
