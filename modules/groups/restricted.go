package groups

import (
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// restrictedVisibility is GitLab's deny_visibility_level: only
// administrators may use a level the application settings restrict.
func restrictedVisibility(app domain.Settings, caller *domain.Caller, v domain.Visibility) error {
	if caller.IsAdmin() || !app.Restricted(v) {
		return nil
	}
	return core.FieldInvalid("visibility_level", string(v)+" has been restricted by your GitLab administrator")
}
