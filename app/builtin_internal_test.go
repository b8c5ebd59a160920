package app

import (
	"testing"

	"github.com/hearth-forge/hearth/core/config"
)

// TestServerURL: the built-in runner reaches the server at its listen
// address, on loopback when it listens on every interface, and at the
// external URL when the address has no usable port.
func TestServerURL(t *testing.T) {
	t.Parallel()
	for listen, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080",
		"0.0.0.0:8080":   "http://127.0.0.1:8080",
		"[::]:8080":      "http://127.0.0.1:8080",
		":8080":          "http://127.0.0.1:8080",
		"[::1]:9000":     "http://[::1]:9000",
		"git.local:8080": "http://git.local:8080",
		"127.0.0.1:0":    "https://git.example.com",
		"nonsense":       "https://git.example.com",
	} {
		cfg := config.Config{Listen: listen, ExternalURL: "https://git.example.com/"}
		if got := serverURL(cfg); got != want {
			t.Errorf("listen %q: %q, want %q", listen, got, want)
		}
	}
}

// TestWithRegistrationToken: an empty ci.registration_token is filled with
// a random one; a configured one is kept.
func TestWithRegistrationToken(t *testing.T) {
	t.Parallel()
	var a, b config.Config
	a, _ = withRegistrationToken(a)
	b, _ = withRegistrationToken(b)
	if len(a.CI.RegistrationToken) < 32 || a.CI.RegistrationToken == b.CI.RegistrationToken {
		t.Errorf("generated tokens %q and %q", a.CI.RegistrationToken, b.CI.RegistrationToken)
	}
	c := config.Config{CI: config.CI{RegistrationToken: "set"}}
	if c, _ = withRegistrationToken(c); c.CI.RegistrationToken != "set" {
		t.Errorf("configured token replaced by %q", c.CI.RegistrationToken)
	}
}
