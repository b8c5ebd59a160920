package hooks

import (
	"context"
	"errors"

	"github.com/hearth-forge/hearth/core/domain"
)

// sendNow is wt-deliver's; this stand-in lets the package build until that
// branch lands on hooks-base, and goes then.
func (s *Service) sendNow(ctx context.Context, hookID int64, t domain.HookTarget, event string, payload []byte) (domain.HookDelivery, error) {
	return domain.HookDelivery{}, errors.New("sendNow: not built yet")
}
