package gitcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/hearth-forge/hearth/core/ports"
)

// transport checks service and protocol and opens repo: git's command
// for service and the options (directory, environment) to run it with.
func (b *Backend) transport(repo, service, protocol string) (string, runOpts, error) {
	if err := check.Transport(service, protocol); err != nil {
		return "", runOpts{}, err
	}
	gitDir, err := b.open(repo)
	if err != nil {
		return "", runOpts{}, err
	}
	o := runOpts{dir: gitDir}
	if protocol != "" {
		o.env = []string{"GIT_PROTOCOL=" + protocol}
	}
	return strings.TrimPrefix(service, "git-"), o, nil // upload-pack, receive-pack
}

// AdvertiseRefs writes the ref advertisement of service.
func (b *Backend) AdvertiseRefs(ctx context.Context, repo, service, protocol string, w io.Writer) error {
	cmd, o, err := b.transport(repo, service, protocol)
	if err != nil {
		return err
	}
	o.stdout = w
	// The directory is ours (validated, absolute), never user input.
	if _, err := b.runOpts(ctx, o, cmd, "--stateless-rpc", "--advertise-refs", o.dir); err != nil {
		return fmt.Errorf("gitcli: advertise %s of %s: %w", service, repo, err)
	}
	return nil
}

// ServeRPC runs one stateless request of service, streaming in to git and
// git's answer to w. Pushed objects and refs are fsynced (see gitEnv).
func (b *Backend) ServeRPC(ctx context.Context, repo, service, protocol string, in io.Reader, w io.Writer) error {
	cmd, o, err := b.transport(repo, service, protocol)
	if err != nil {
		return err
	}
	o.stdin, o.stdout = in, w
	if _, err := b.runOpts(ctx, o, cmd, "--stateless-rpc", o.dir); err != nil {
		return fmt.Errorf("gitcli: %s on %s: %w", service, repo, err)
	}
	return nil
}

var _ ports.SessionTransport = (*Backend)(nil)

// ServeSession runs git upload-pack or upload-archive over one
// full-duplex connection (git over SSH): the advertisement and every
// round of negotiation pass through in and out while git runs. git may
// be done before the client closes its side; the wait for in to end is
// bounded (waitDelay) and not an error then.
func (b *Backend) ServeSession(ctx context.Context, repo, service, protocol string, in io.Reader, out io.Writer) error {
	if err := check.Session(service, protocol); err != nil {
		return err
	}
	gitDir, err := b.open(repo)
	if err != nil {
		return err
	}
	o := runOpts{dir: gitDir, stdin: in, stdout: out}
	if protocol != "" {
		o.env = []string{"GIT_PROTOCOL=" + protocol}
	}
	// The directory is ours (validated, absolute), never user input.
	if _, err := b.runOpts(ctx, o, strings.TrimPrefix(service, "git-"), gitDir); err != nil && !errors.Is(err, exec.ErrWaitDelay) {
		return fmt.Errorf("gitcli: %s session on %s: %w", service, repo, err)
	}
	return nil
}
