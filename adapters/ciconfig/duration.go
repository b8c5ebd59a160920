package ciconfig

import (
	"regexp"
	"strings"
)

// durationUnits are the words ChronicDuration (which GitLab validates
// expire_in with) knows.
var durationUnits = func() map[string]bool {
	units := map[string]bool{}
	for _, w := range strings.Fields(`s sec secs second seconds m min mins minute minutes
		h hr hrs hour hours d dy day days w wk wks week weeks
		mo mos mth mths month months y yr yrs year years`) {
		units[w] = true
	}
	return units
}()

var (
	durationNumber = regexp.MustCompile(`[0-9]*\.?[0-9]+`)
	durationClock  = regexp.MustCompile(`^[0-9]+(:[0-9]+){1,2}(\.[0-9]+)?$`)
)

// validDuration reports whether ChronicDuration, with exceptions on as
// GitLab sets it, parses s: numbers with units ("1 week", "2h20min",
// "3 weeks and 2 days"), a clock ("1:30"), or "never".
func validDuration(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "never" || durationClock.MatchString(s) {
		return true
	}
	numbers := 0
	for _, w := range strings.Fields(durationNumber.ReplaceAllString(s, " $0 ")) {
		w = strings.Trim(w, ",")
		switch {
		case durationNumber.MatchString(w) && durationNumber.FindString(w) == w:
			numbers++
		case w == "" || w == "and" || w == "with" || w == "plus" || durationUnits[w]:
		default:
			return false
		}
	}
	return numbers > 0
}
