package snippets

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// restrictedVisibility is GitLab's deny_visibility_level: only
// administrators may use a level the application settings restrict.
func restrictedVisibility(app domain.Settings, caller *domain.Caller, v domain.Visibility) error {
	if caller.IsAdmin() || !app.Restricted(v) {
		return nil
	}
	return core.FieldInvalid("visibility_level", string(v)+" has been restricted by your GitLab administrator")
}

// checkRestricted applies restrictedVisibility with the current settings.
func (s *Service) checkRestricted(ctx context.Context, caller *domain.Caller, v domain.Visibility) error {
	app, err := ports.CurrentSettings(ctx, s.p.Settings)
	if err != nil {
		return fmt.Errorf("application settings: %w", err)
	}
	return restrictedVisibility(app, caller, v)
}
