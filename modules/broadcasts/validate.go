package broadcasts

import (
	"regexp"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// colorPattern is GitLab's ColorValidator: a hash and three or six hex
// digits.
var colorPattern = regexp.MustCompile(`^#(?:[0-9A-Fa-f]{3}){1,2}$`)

// apply sets on m what in gives, times to the millisecond clients see.
func (in Input) apply(m *domain.BroadcastMessage) {
	if in.Message != nil {
		m.Message = *in.Message
	}
	if in.StartsAt != nil {
		m.StartsAt = in.StartsAt.UTC().Truncate(time.Millisecond)
	}
	if in.EndsAt != nil {
		m.EndsAt = in.EndsAt.UTC().Truncate(time.Millisecond)
	}
	if in.Color != nil {
		m.Color = *in.Color
	}
	if in.Font != nil {
		m.Font = *in.Font
	}
}

// validate is GitLab's model validation of the message as it would be
// saved, in its order: message, starts_at and ends_at present (a blank
// time given to PUT), colours blank or valid. As in GitLab, a message that
// ends before it starts is saved; it is never active.
func (in Input) validate(m *domain.BroadcastMessage) error {
	errs := core.FieldErrors{}
	if strings.TrimSpace(m.Message) == "" {
		errs.Add("message", "can't be blank")
	}
	if in.BlankStartsAt {
		errs.Add("starts_at", "can't be blank")
	}
	if in.BlankEndsAt {
		errs.Add("ends_at", "can't be blank")
	}
	checkColor(errs, "color", m.Color)
	checkColor(errs, "font", m.Font)
	return errs.Err()
}

// checkColor allows a blank colour (allow_blank: true).
func checkColor(errs core.FieldErrors, field, v string) {
	if strings.TrimSpace(v) != "" && !colorPattern.MatchString(v) {
		errs.Add(field, "must be a valid color code")
	}
}
