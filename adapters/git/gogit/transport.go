package gogit

import (
	"context"
	"io"

	"github.com/hearth-forge/hearth/core"
)

// checkTransport validates service and protocol like gitcli.
func (b *Backend) checkTransport(repo, service, protocol string) error {
	if err := check.Transport(service, protocol); err != nil {
		return err
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
