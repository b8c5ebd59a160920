package gogit

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// checkTransport validates service and protocol like gitcli.
func (b *Backend) checkTransport(repo, service, protocol string) error {
	switch service {
	case "git-upload-pack", "git-receive-pack":
	default:
		return fmt.Errorf("gogit: unknown service %q: %w", service, core.ErrInvalid)
	}
	if len(protocol) > 256 || domain.HasControl(protocol) || strings.ContainsAny(protocol, " \t") {
		return fmt.Errorf("gogit: invalid Git-Protocol %q: %w", protocol, core.ErrInvalid)
	}
	if _, err := b.open(repo); err != nil {
		return err
	}
	return core.NotAllowed("the gogit backend cannot serve " + service + " over HTTP; use the gitcli backend")
}

// AdvertiseRefs is not offered by this backend (core.ErrNotAllowed).
func (b *Backend) AdvertiseRefs(ctx context.Context, repo, service, protocol string, w io.Writer) error {
	return b.checkTransport(repo, service, protocol)
}

// ServeRPC is not offered by this backend (core.ErrNotAllowed).
func (b *Backend) ServeRPC(ctx context.Context, repo, service, protocol string, in io.Reader, w io.Writer) error {
	return b.checkTransport(repo, service, protocol)
}
