package app

import (
	"context"
	"errors"

	"github.com/hearth-forge/hearth/adapters/webhook/netguard"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/ports"
)

// hookURLGuard is ports.URLGuard over netguard: a refusal becomes the
// port's 422 (netguard's Validation), so modules never see netguard.
type hookURLGuard struct{ g netguard.Guard }

func (h hookURLGuard) CheckURL(ctx context.Context, raw string) error {
	err := h.g.CheckURL(ctx, raw)
	var blocked *netguard.BlockedError
	if errors.As(err, &blocked) {
		return blocked.Validation()
	}
	return err
}

// newURLGuard checks hook URLs with webhooks.allow_local_requests.
func newURLGuard(cfg config.Config) ports.URLGuard {
	return hookURLGuard{g: netguard.Guard{AllowLocal: cfg.Webhooks.AllowLocalRequests}}
}

var _ ports.URLGuard = hookURLGuard{}
