package users

import (
	"strings"
	"testing"
)

// usernameFormatMsg is GitLab's message for a malformed namespace path.
const usernameFormatMsg = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."

func TestUsernames(t *testing.T) {
	good := []string{"root", "a", "_", "alice.smith", "bob-1", "x_y", "A1", ".hidden", "ends-", "git.gitx"}
	bad := []string{"", " ", "-dan", "dan.", "dan.git", "DAN.GIT", "dan.atom", "da n", "dan@x", "dän", "dan/x",
		"help", "USERS", "api", strings.Repeat("a", 256), "-"}
	for _, u := range good {
		if !ValidUsername(u) {
			t.Errorf("rejected %q: %v", u, usernameErrors(u))
		}
	}
	for _, u := range bad {
		if ValidUsername(u) {
			t.Errorf("accepted %q", u)
		}
	}
	if got := usernameErrors("help"); len(got) != 1 || got[0] != "help is a reserved name" {
		t.Errorf("reserved message %v", got)
	}
	if got := usernameErrors("-x"); len(got) != 1 || got[0] != usernameFormatMsg {
		t.Errorf("format message %v", got)
	}
}

func TestEmailFormat(t *testing.T) {
	good := []string{"a@b", "alice@example.com", " Alice@Example.COM ", "a+tag@sub.example.org"}
	bad := []string{"", "nope", "a@", "@b", "a b@c", "a@b@c", strings.Repeat("a", 250) + "@example.com"}
	for _, e := range good {
		if !ValidEmail(e) {
			t.Errorf("rejected %q", e)
		}
	}
	for _, e := range bad {
		if ValidEmail(e) {
			t.Errorf("accepted %q", e)
		}
	}
	if NormalizeEmail(" Alice@Example.COM ") != "alice@example.com" {
		t.Error("emails are trimmed and lowercased")
	}
}

func TestPasswords(t *testing.T) {
	if got := passwordErrors("short"); len(got) != 1 || got[0] != "is too short (minimum is 8 characters)" {
		t.Errorf("short: %v", got)
	}
	if passwordErrors("12345678") != nil {
		t.Error("8 characters are enough")
	}
	if passwordErrors(strings.Repeat("é", 128)) != nil {
		t.Error("length counts characters, not bytes")
	}
	if passwordErrors(strings.Repeat("x", 129)) == nil {
		t.Error("129 characters are too many")
	}
	if got := passwordErrors(""); got[0] != "can't be blank" {
		t.Errorf("blank: %v", got)
	}
}
