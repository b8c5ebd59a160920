package gitcli

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// transportArgs checks service and protocol and returns git's command
// name and the extra environment.
func transportArgs(service, protocol string) (string, []string, error) {
	if err := check.Transport(service, protocol); err != nil {
		return "", nil, err
	}
	cmd := strings.TrimPrefix(service, "git-") // upload-pack, receive-pack
	var env []string
	if protocol != "" {
		env = append(env, "GIT_PROTOCOL="+protocol)
	}
	return cmd, env, nil
}

// AdvertiseRefs writes the ref advertisement of service.
func (b *Backend) AdvertiseRefs(ctx context.Context, repo, service, protocol string, w io.Writer) error {
	cmd, env, err := transportArgs(service, protocol)
	if err != nil {
		return err
	}
	gitDir, err := b.open(repo)
	if err != nil {
		return err
	}
	// The directory is ours (validated, absolute), never user input.
	_, err = b.runOpts(ctx, runOpts{dir: gitDir, env: env, stdout: w},
		cmd, "--stateless-rpc", "--advertise-refs", gitDir)
	if err != nil {
		return fmt.Errorf("gitcli: advertise %s of %s: %w", service, repo, err)
	}
	return nil
}

// ServeRPC runs one stateless request of service, streaming in to git and
// git's answer to w. Pushed objects and refs are fsynced (see gitEnv).
func (b *Backend) ServeRPC(ctx context.Context, repo, service, protocol string, in io.Reader, w io.Writer) error {
	cmd, env, err := transportArgs(service, protocol)
	if err != nil {
		return err
	}
	gitDir, err := b.open(repo)
	if err != nil {
		return err
	}
	_, err = b.runOpts(ctx, runOpts{dir: gitDir, env: env, stdin: in, stdout: w},
		cmd, "--stateless-rpc", gitDir)
	if err != nil {
		return fmt.Errorf("gitcli: %s on %s: %w", service, repo, err)
	}
	return nil
}
