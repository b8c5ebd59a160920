package access_test

import (
	"errors"
	"testing"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

func TestAllowedVisibility(t *testing.T) {
	t.Parallel()
	st := domain.DefaultSettings()
	st.RestrictedVisibilityLevels = []domain.Visibility{domain.Public}
	user := &domain.Caller{User: &domain.User{ID: 2, State: domain.UserActive}}
	admin := &domain.Caller{User: &domain.User{ID: 1, Admin: true, State: domain.UserActive}}
	if err := access.AllowedVisibility(st, admin, domain.Public); err != nil {
		t.Errorf("admin: %v", err)
	}
	if err := access.AllowedVisibility(st, user, domain.Internal); err != nil {
		t.Errorf("user, internal: %v", err)
	}
	err := access.AllowedVisibility(st, user, domain.Public)
	var e *core.Error
	if !errors.As(err, &e) || e.Kind != core.ErrInvalid ||
		e.Fields["visibility_level"][0] != "public has been restricted by your GitLab administrator" {
		t.Errorf("user, public: %v", err)
	}
	if got := st.HighestAllowedVisibility(); got != domain.Internal {
		t.Errorf("highest allowed %q, want internal", got)
	}
	st.RestrictedVisibilityLevels = []domain.Visibility{domain.Public, domain.Internal}
	if got := st.HighestAllowedVisibility(); got != domain.Private {
		t.Errorf("highest allowed %q, want private", got)
	}
}
