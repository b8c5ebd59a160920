package snippets

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// checkRestricted applies access.AllowedVisibility with the current
// settings.
func (s *Service) checkRestricted(ctx context.Context, caller *domain.Caller, v domain.Visibility) error {
	app, err := ports.CurrentSettings(ctx, s.p.Settings)
	if err != nil {
		return fmt.Errorf("application settings: %w", err)
	}
	return access.AllowedVisibility(app, caller, v)
}
