// Package duration reads and writes time-tracking durations as GitLab 9.x
// does (its TimeTrackingFormatter over ChronicDuration): working time of
// 8-hour days and 5-day weeks, "1w 2d 3h 4m 5s" in and out, a bare number
// counting hours, and a leading "-" for time taken off.
package duration

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Units of working time, in seconds.
const (
	Minute = 60
	Hour   = 60 * Minute
	Day    = 8 * Hour
	Week   = 5 * Day
	// Month is 30 working days when parsing and formatting alike.
	Month = 30 * Day
	// year is what "1y" parses to (365 calendar days) ...
	year = 31536000
	// ... and outputYear what formatting counts as one (365.25 calendar
	// days): ChronicDuration's two differing constants.
	outputYear = 31557600
)

// Max is the largest duration GitLab's integer columns hold.
const Max = math.MaxInt32

var (
	number   = regexp.MustCompile(`[0-9]*\.?[0-9]+`)
	clock    = regexp.MustCompile(`^[0-9]+:[0-9]+(:[0-9]+){0,4}(\.[0-9]*)?$`)
	spaces   = regexp.MustCompile(` +`)
	unitName = map[string]string{
		"seconds": "seconds", "second": "seconds", "secs": "seconds", "sec": "seconds", "s": "seconds",
		"minutes": "minutes", "minute": "minutes", "mins": "minutes", "min": "minutes", "m": "minutes",
		"hours": "hours", "hour": "hours", "hrs": "hours", "hr": "hours", "h": "hours",
		"days": "days", "day": "days", "dy": "days", "d": "days",
		"weeks": "weeks", "week": "weeks", "wks": "weeks", "wk": "weeks", "w": "weeks",
		"months": "months", "mo": "months", "mos": "months", "month": "months",
		"years": "years", "year": "years", "yrs": "years", "yr": "years", "y": "years",
	}
	unitSeconds = map[string]float64{
		"seconds": 1, "minutes": Minute, "hours": Hour, "days": Day, "weeks": Week, "months": Month, "years": year,
	}
	// clockUnits name the fields of "h:m:s" from the right (weeks have
	// no place there).
	clockUnits = []string{"seconds", "minutes", "hours", "days", "months", "years"}
)

// Parse reads a duration: "3h30m", "1w2d3h4m5s", "1 day and 2 hours",
// "1:30" (minutes:seconds), "2" (hours), "-1h". Words it does not know are
// skipped, as GitLab does; ok is false when nothing countable remains
// (zero included) or the value leaves Max behind. Fractions of a second
// are dropped.
func Parse(s string) (seconds int64, ok bool) {
	s, negative := strings.CutPrefix(s, "-")
	words := whiteList(split(strings.ToLower(s)))
	var total float64
	for i, w := range words {
		if !number.MatchString(w) {
			continue
		}
		unit := "hours" // the default unit of a trailing number
		if i+1 < len(words) {
			unit = words[i+1]
		}
		total += toNumber(w) * unitSeconds[unit] // an unknown unit (another number) counts 0
	}
	if total == 0 || math.IsNaN(total) || total > Max {
		return 0, false
	}
	seconds = int64(total)
	if negative {
		seconds = -seconds
	}
	return seconds, true
}

// split turns "1:30" into "1 minutes 30 seconds" and puts every number
// apart from what surrounds it: "3h30m" is "3 h 30 m".
func split(s string) []string {
	if compact := strings.ReplaceAll(s, " ", ""); clock.MatchString(compact) {
		parts := strings.Split(compact, ":")
		words := make([]string, 0, 2*len(parts))
		for i, p := range parts {
			words = append(words, p, clockUnits[len(parts)-1-i])
		}
		s = strings.Join(words, " ")
	}
	s = number.ReplaceAllString(s, " $0 ")
	return strings.Fields(spaces.ReplaceAllString(s, " "))
}

// whiteList keeps numbers and known units (by their full name), and puts
// a 1 before a leading unit ("h" is an hour).
func whiteList(words []string) []string {
	out := make([]string, 0, len(words))
	for _, w := range words {
		if number.MatchString(w) {
			out = append(out, w)
			continue
		}
		if u, ok := unitName[strings.Trim(w, ",")]; ok {
			out = append(out, u)
		}
	}
	if len(out) > 0 && !number.MatchString(out[0]) {
		out = append([]string{"1"}, out...)
	}
	return out
}

// toNumber is Ruby's to_f of a word that holds a number.
func toNumber(w string) float64 {
	f, err := strconv.ParseFloat(number.FindString(w), 64)
	if err != nil {
		return 0
	}
	return f
}

// Format writes seconds the short way GitLab shows them: "1w 2d 3h 4m 5s",
// "1mo 1w" from four weeks on; "" for zero (GitLab's null). A negative
// duration is written as its size after a "-".
func Format(seconds int64) string {
	if seconds < 0 {
		return "-" + Format(-seconds)
	}
	var years, months, weeks, days, hours, minutes int64
	s := seconds
	switch {
	case s >= outputYear && s%outputYear < s%Month:
		years, s = s/outputYear, s%outputYear
		months, s = s/Month, s%Month
		days, s = s/Day, s%Day
		hours, s = s/Hour, s%Hour
		minutes, s = s/Minute, s%Minute
	case s >= Minute:
		minutes, s = s/Minute, s%Minute
		if minutes >= 60 {
			hours, minutes = minutes/60, minutes%60
			if hours >= Day/Hour {
				days, hours = hours/(Day/Hour), hours%(Day/Hour)
				if days >= Week/Day {
					weeks, days = days/(Week/Day), days%(Week/Day)
					if weeks >= 4 {
						months, weeks = weeks/4, weeks%4
					}
				}
			}
		}
	}
	var parts []string
	for _, p := range []struct {
		n    int64
		unit string
	}{{years, "y"}, {months, "mo"}, {weeks, "w"}, {days, "d"}, {hours, "h"}, {minutes, "m"}, {s, "s"}} {
		if p.n != 0 {
			parts = append(parts, strconv.FormatInt(p.n, 10)+p.unit)
		}
	}
	return strings.Join(parts, " ")
}
