package duration

import "testing"

func TestParse(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{
		"3h30m":              3*Hour + 30*Minute,
		"1w2d3h4m5s":         Week + 2*Day + 3*Hour + 4*Minute + 5,
		"1w 2d 3h 4m 5s":     Week + 2*Day + 3*Hour + 4*Minute + 5,
		"-1h":                -Hour,
		"2":                  2 * Hour, // a bare number counts hours
		"1.5h":               90 * Minute,
		"1d":                 8 * Hour,
		"1w":                 40 * Hour,
		"1mo":                30 * Day,
		"1y":                 31536000,
		"1 day and 2 hours":  Day + 2*Hour,
		"2 Hours, 5 MINUTES": 2*Hour + 5*Minute,
		"h":                  Hour, // a unit alone is one of it
		"1:30":               90,   // minutes:seconds
		"1:00:00":            Hour,
		"3h foo":             3 * Hour, // unknown words are skipped
		"1h-30m":             30 * Minute,
		"1 2h":               2 * Hour, // a number followed by a number counts nothing
		"0.1":                6 * Minute,
	} {
		got, ok := Parse(in)
		if !ok || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "foo", "0", "0h", "-", "-foo", "99999999999h"} {
		if got, ok := Parse(in); ok {
			t.Errorf("Parse(%q) = %d, true; want not ok", in, got)
		}
	}
}

func TestFormat(t *testing.T) {
	t.Parallel()
	for in, want := range map[int64]string{
		0:                                    "",
		5:                                    "5s",
		3*Hour + 30*Minute:                   "3h 30m",
		Week + 2*Day:                         "1w 2d",
		Week + 2*Day + 3*Hour + 4*Minute + 5: "1w 2d 3h 4m 5s",
		8 * Hour:                             "1d",
		10 * Hour:                            "1d 2h",
		4 * Week:                             "1mo",
		9 * Week:                             "2mo 1w",
		-Hour:                                "-1h",
	} {
		if got := Format(in); got != want {
			t.Errorf("Format(%d) = %q, want %q", in, got, want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, s := range []int64{1, 59, 61, 3599, Hour, Day - 1, Week + 1, 3*Week + 4*Day + 7*Hour + 59*Minute + 59} {
		if got, ok := Parse(Format(s)); !ok || got != s {
			t.Errorf("Parse(Format(%d)) = %d, %v", s, got, ok)
		}
	}
}
