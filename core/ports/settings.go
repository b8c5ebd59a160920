package ports

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

// SettingsStore keeps the one row of application settings.
type SettingsStore interface {
	// Get reads the settings, storing defaults first when there are none
	// yet (several nodes may race to: one row wins, all read it).
	Get(ctx context.Context, defaults domain.Settings) (*domain.Settings, error)
	// Update applies fn to the settings (defaults when none are stored)
	// under a row lock and saves them with a new UpdatedAt; fn's error is
	// returned as is.
	Update(ctx context.Context, defaults domain.Settings, fn func(s *domain.Settings) error) (*domain.Settings, error)
}

// Settings gives modules the current application settings, cheaply: the
// implementation caches them, so callers may ask on every request. Modules
// that do not find one (the settings module is not installed) use
// domain.DefaultSettings.
type Settings interface {
	// Current returns the settings in effect; the value is the caller's
	// to read, not to change.
	Current(ctx context.Context) (domain.Settings, error)
}

// CurrentSettings is s.Current, or domain.DefaultSettings when s is nil
// (modules take ports.Settings as an optional dependency).
func CurrentSettings(ctx context.Context, s Settings) (domain.Settings, error) {
	if s == nil {
		return domain.DefaultSettings(), nil
	}
	return s.Current(ctx)
}
