package app

import (
	"context"
	"errors"

	"github.com/hearth-forge/hearth/adapters/metrics"
	"github.com/hearth-forge/hearth/adapters/webhook/netguard"
	"github.com/hearth-forge/hearth/adapters/webhook/sender"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/ports"
	"github.com/hearth-forge/hearth/modules/meta"
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

// newHookSender delivers with the same guard, checked again at each
// connection, and webhooks.timeout per request, counting each attempt in
// the metrics.
func newHookSender(cfg config.Config, m *metrics.Registry) ports.HookSender {
	g := netguard.Guard{AllowLocal: cfg.Webhooks.AllowLocalRequests}
	return observedSender{next: sender.New(g, cfg.Webhooks.Timeout, "Hearth/"+meta.Version), m: m}
}

var _ ports.URLGuard = hookURLGuard{}
