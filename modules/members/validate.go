package members

import (
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// validate applies GitLab 9.x's member model validations: a project member
// is guest to master, a group member guest to owner; an expiry date set
// now may not be in the past.
func (s *Service) validate(kind domain.MemberSource, level domain.AccessLevel, expires *time.Time, checkExpiry bool) error {
	fields := map[string][]string{}
	if !level.Valid() || (kind == domain.MemberOfProject && level == domain.Owner) {
		fields["access_level"] = []string{"is not included in the list"}
	}
	if checkExpiry && expires != nil && expires.Before(domain.DateOf(s.now())) {
		fields["expires_at"] = []string{"cannot be a date in the past"}
	}
	if len(fields) > 0 {
		return core.Validation(fields)
	}
	return nil
}
