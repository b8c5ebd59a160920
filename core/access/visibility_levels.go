package access

import (
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// AllowedVisibility is GitLab's VisibilityLevel.allowed_for? with its
// deny_visibility_level answer: administrators may use any level, others
// only those the application settings do not restrict. A restricted level
// is a 400 field error on visibility_level, as GitLab's services add it.
func AllowedVisibility(settings domain.Settings, c *domain.Caller, v domain.Visibility) error {
	if u := user(c); (u != nil && u.Admin) || !settings.Restricted(v) {
		return nil
	}
	return core.FieldInvalid("visibility_level", string(v)+" has been restricted by your GitLab administrator")
}
