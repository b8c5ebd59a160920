package repository

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// Git's smart protocol services.
const (
	uploadPack  = "git-upload-pack"
	receivePack = "git-receive-pack"
)

// GitLab's refusals of a git request (lib/gitlab/git_access.rb).
const (
	msgDownload = "You are not allowed to download code from this project."
	msgPushCode = "You are not allowed to push code to this project."
)

// GitRepo is a project's repository opened for one smart protocol
// request that its caller may make. A git request is checked once, before
// its body is read; the transport then runs on what OpenGit returned.
type GitRepo struct {
	s       *Service
	t       access.Target
	service string
}

// AuthenticateGit signs in the HTTP Basic credentials of a git client:
// the password is the user's password or a personal or impersonation token
// with the api scope (any username), or a running CI job's token (login
// gitlab-ci-token: fetch only, see core/access). Refused credentials are
// core.ErrUnauthenticated.
func (s *Service) AuthenticateGit(ctx context.Context, login, password string) (*domain.Caller, error) {
	if password == "" {
		return nil, core.Unauthenticated()
	}
	c, err := s.p.Auth.Token(ctx, password)
	if err == nil && c.Token != nil && !c.Token.HasScope(domain.ScopeAPI) {
		// read_user tokens do not reach repositories.
		c, err = nil, core.Unauthenticated()
	}
	// gitlab-ci-token is the login of CI job tokens, never of a password.
	if errors.Is(err, core.ErrUnauthenticated) && login != "" && login != "gitlab-ci-token" {
		c, err = s.p.Auth.Password(ctx, login, password)
	}
	if err != nil {
		return nil, fmt.Errorf("git credentials: %w", err)
	}
	return c, nil
}

// OpenGit checks that caller may use service on the project at fullPath,
// as GitLab's git HTTP controller does: download_code to fetch, push_code
// to push. Anonymous callers who may not are core.ErrUnauthenticated (so
// git asks for credentials), whether or not the project exists; signed-in
// callers get core.ErrNotFound for projects they cannot see and
// core.ErrForbidden, with GitLab's message, for what they may not do.
func (s *Service) OpenGit(ctx context.Context, caller *domain.Caller, fullPath, service string) (*GitRepo, error) {
	anonymous := caller.Anonymous()
	t, err := s.p.Policy.Resolve(ctx, caller, domain.IDOrPath{Path: fullPath})
	switch {
	case errors.Is(err, core.ErrNotFound) && anonymous:
		return nil, core.Unauthenticated()
	case err != nil:
		return nil, err
	}
	ability, msg := access.DownloadCode, msgDownload
	switch service {
	case uploadPack:
	case receivePack:
		ability, msg = access.PushCode, msgPushCode
	default:
		return nil, core.BadRequest("unknown git service " + service)
	}
	if !t.Can(ability) {
		if anonymous {
			return nil, core.Unauthenticated()
		}
		return nil, &core.Error{Kind: core.ErrForbidden, Msg: msg}
	}
	return &GitRepo{s: s, t: t, service: service}, nil
}

// AdvertiseRefs writes the ref advertisement of the opened service (the
// body of info/refs after the service packet, which the caller writes).
func (g *GitRepo) AdvertiseRefs(ctx context.Context, protocol string, w io.Writer) error {
	return g.s.p.Transport.AdvertiseRefs(ctx, repoOf(g.t.Project), g.service, protocol, w)
}

// UploadPack serves one fetch request (clone and fetch): in is its body,
// gunzipped.
func (g *GitRepo) UploadPack(ctx context.Context, protocol string, in io.Reader, w io.Writer) error {
	if g.service != uploadPack {
		return fmt.Errorf("upload-pack on a repository opened for %s", g.service)
	}
	return g.s.p.Transport.ServeRPC(ctx, repoOf(g.t.Project), uploadPack, protocol, in, w)
}
