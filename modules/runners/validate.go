package runners

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// minMaximumTimeout is GitLab's floor of a runner's maximum_timeout.
const minMaximumTimeout = 600

// normalTags trims, drops empty and duplicate tags, keeping their order.
func normalTags(tags []string) []string {
	out := []string{}
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if t != "" && !slices.Contains(out, t) {
			out = append(out, clip(t, 255))
		}
	}
	return out
}

// checkRunner applies GitLab's Ci::Runner validations.
func checkRunner(r *domain.Runner) error {
	var f core.FieldErrors = map[string][]string{}
	if !r.RunUntagged && len(r.Tags) == 0 {
		f.Add("tags_list", "can not be empty when runner is not allowed to pick untagged jobs")
	}
	if r.MaximumTimeout != 0 && r.MaximumTimeout < minMaximumTimeout {
		f.Add("maximum_timeout", "needs to be at least 10 minutes")
	}
	return f.Err()
}

func (in RegisterInput) apply(r *domain.Runner) error {
	if in.Description != nil {
		r.Description = clip(*in.Description, 1024)
	}
	r.Tags = normalTags(in.TagList)
	if in.RunUntagged != nil {
		r.RunUntagged = *in.RunUntagged
	}
	if in.Locked != nil {
		r.Locked = *in.Locked
	}
	if in.AccessLevel != nil {
		r.AccessLevel = *in.AccessLevel
	}
	if in.MaximumTimeout != nil {
		r.MaximumTimeout = *in.MaximumTimeout
	}
	if in.Active != nil {
		r.Active = *in.Active
	}
	if in.Paused != nil {
		r.Active = !*in.Paused
	}
	return checkRunner(r)
}

func (in UpdateRunnerInput) apply(r *domain.Runner) error {
	if in.Description != nil {
		r.Description = clip(*in.Description, 1024)
	}
	if in.Active != nil {
		r.Active = *in.Active
	}
	if in.Paused != nil {
		r.Active = !*in.Paused
	}
	if in.TagList != nil {
		r.Tags = normalTags(*in.TagList)
	}
	if in.RunUntagged != nil {
		r.RunUntagged = *in.RunUntagged
	}
	if in.Locked != nil {
		r.Locked = *in.Locked
	}
	if in.AccessLevel != nil {
		r.AccessLevel = *in.AccessLevel
	}
	if in.MaximumTimeout != nil {
		r.MaximumTimeout = *in.MaximumTimeout
	}
	return checkRunner(r)
}

var (
	durationPart  = regexp.MustCompile(`^(\d+(?:\.\d+)?)\s*([a-z]+)$`)
	durationParts = regexp.MustCompile(`\d+(?:\.\d+)?\s*[a-z]+`)
)

// durationUnits are ChronicDuration's units, in seconds.
var durationUnits = map[string]float64{
	"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
	"m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
	"h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
	"d": 86400, "day": 86400, "days": 86400,
	"w": 604800, "wk": 604800, "wks": 604800, "week": 604800, "weeks": 604800,
	"mo": 2629746, "mos": 2629746, "month": 2629746, "months": 2629746,
	"y": 31556952, "yr": 31556952, "yrs": 31556952, "year": 31556952, "years": 31556952,
}

// parseExpireIn reads an expire_in value as GitLab does (ChronicDuration):
// "1 week", "30 days", "2 hrs 20 min", "3600" (seconds); "never" is no
// expiry (ok with zero). Unreadable values are an error.
func parseExpireIn(s string) (d time.Duration, never bool, err error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || s == "never" {
		return 0, true, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, false, nil
	}
	// Split "2 hrs 20 min" / "1h30m" / "1 week and 2 days" into number-unit parts.
	s = strings.NewReplacer(",", " ", " and ", " ").Replace(s)
	var total float64
	parts := durationParts.FindAllString(s, -1)
	if len(parts) == 0 || strings.TrimSpace(durationParts.ReplaceAllString(s, "")) != "" {
		return 0, false, fmt.Errorf("expire_in %q is not a duration", s)
	}
	for _, p := range parts {
		m := durationPart.FindStringSubmatch(strings.TrimSpace(p))
		if m == nil {
			return 0, false, fmt.Errorf("expire_in %q is not a duration", s)
		}
		unit, ok := durationUnits[m[2]]
		if !ok {
			return 0, false, fmt.Errorf("expire_in %q: unknown unit %q", s, m[2])
		}
		n, _ := strconv.ParseFloat(m[1], 64)
		total += n * unit
	}
	if total > 100*31556952 {
		total = 100 * 31556952
	}
	return time.Duration(total * float64(time.Second)), false, nil
}
