package runners

import (
	"testing"
	"time"
)

func TestParseExpireIn(t *testing.T) {
	day := 24 * time.Hour
	cases := []struct {
		in    string
		want  time.Duration
		never bool
		bad   bool
	}{
		{"1 week", 7 * day, false, false},
		{"30 days", 30 * day, false, false},
		{"2 hrs 20 min", 2*time.Hour + 20*time.Minute, false, false},
		{"1h30m", 90 * time.Minute, false, false},
		{"1 week and 2 days", 9 * day, false, false},
		{"3600", time.Hour, false, false},
		{"never", 0, true, false},
		{"", 0, true, false},
		{"  Never ", 0, true, false},
		{"whenever", 0, false, true},
		{"1 fortnight", 0, false, true},
		{"-5 days", 0, false, true},
	}
	for _, c := range cases {
		got, never, err := parseExpireIn(c.in)
		if (err != nil) != c.bad || never != c.never || (!c.bad && got != c.want) {
			t.Errorf("parseExpireIn(%q) = %v, %v, %v", c.in, got, never, err)
		}
	}
}

func TestRefSlug(t *testing.T) {
	for in, want := range map[string]string{
		"master": "master", "feature/Add-X": "feature-add-x", "-x_y-": "x-y",
		"a123456789012345678901234567890123456789012345678901234567890123456789": "a12345678901234567890123456789012345678901234567890123456789012",
	} {
		if got := refSlug(in); got != want {
			t.Errorf("refSlug(%q) = %q, want %q", in, got, want)
		}
	}
}
