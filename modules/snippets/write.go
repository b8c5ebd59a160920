package snippets

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Origin is where a new snippet came from, recorded for spam checks.
type Origin struct {
	UserAgent string
	IP        string
}

// Create stores a new snippet of the caller: 401 for anonymous callers,
// the project's 404, the request's problems (400), then
// create_project_snippet (reporters and up, 403) and the snippet's own
// validation.
func (s *Service) Create(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in CreateInput, from Origin) (*Found, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref, access.ReadSnippet)
	if err != nil {
		return nil, err
	}
	if err := in.validate(); err != nil {
		return nil, err
	}
	if err := t.Require(access.CreateSnippet); err != nil {
		return nil, err
	}
	now := s.now()
	sn := &domain.Snippet{ProjectID: t.Project.ID, AuthorID: caller.UserID(), Title: strings.TrimSpace(in.Title),
		FileName: strings.TrimSpace(in.FileName), Content: in.Code, Visibility: domain.Visibility(in.Visibility),
		UserAgent: from.UserAgent, IPAddress: from.IP, CreatedAt: now, UpdatedAt: now}
	if in.Description != nil {
		sn.Description = *in.Description
	}
	if err := s.checkRestricted(ctx, caller, sn.Visibility); err != nil {
		return nil, err
	}
	if err := validate(sn); err != nil {
		return nil, err
	}
	if err := s.p.Snippets.Create(ctx, sn); err != nil {
		return nil, fmt.Errorf("create snippet: %w", err)
	}
	return &Found{Project: t.Project, Snippet: sn}, nil
}

// Update applies an edit by the author or a master under the store's
// lock, validating the result. The request's problems (400) come after
// the project's 404 and before the snippet's.
func (s *Service) Update(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id int64, in UpdateInput) (*Found, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref, access.ReadSnippet)
	if err != nil {
		return nil, err
	}
	if err := in.validate(); err != nil {
		return nil, err
	}
	sn, err := s.load(ctx, t, id)
	if err != nil {
		return nil, err
	}
	if err := t.Require(access.AdminSnippet, access.OnSnippet(sn)); err != nil {
		return nil, err
	}
	out, err := s.save(ctx, caller, t.Project.ID, sn.ID, in.apply)
	if err != nil {
		return nil, err
	}
	return &Found{Project: t.Project, Snippet: out}, nil
}

// save writes an update of snippet id of project (0 for a personal
// snippet): apply's changes, a new updated_at, then the model's rules.
func (s *Service) save(ctx context.Context, caller *domain.Caller, project, id int64, apply func(*domain.Snippet)) (*domain.Snippet, error) {
	app, err := ports.CurrentSettings(ctx, s.p.Settings)
	if err != nil {
		return nil, fmt.Errorf("application settings: %w", err)
	}
	out, err := s.p.Snippets.Update(ctx, project, id, func(x *domain.Snippet) error {
		was := x.Visibility
		apply(x)
		if x.Visibility != was {
			if err := access.AllowedVisibility(app, caller, x.Visibility); err != nil {
				return err
			}
		}
		x.UpdatedAt = s.now()
		return validate(x)
	})
	switch {
	case errors.Is(err, core.ErrNotFound):
		return nil, core.NotFound("Snippet")
	case errors.Is(err, core.ErrInvalid):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("update snippet %d: %w", id, err)
	}
	return out, nil
}

// Delete removes a snippet the caller may administer, with its notes and
// awards, and returns it. Deleting is idempotent: a snippet that is gone
// (or that the caller may not see) is nothing to delete, (nil, nil); an
// id that cannot exist (0) is still the snippet's 404.
func (s *Service) Delete(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id int64) (*Found, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref, access.ReadSnippet)
	if err != nil {
		return nil, err
	}
	if id <= 0 {
		return nil, core.NotFound("Snippet")
	}
	sn, err := s.load(ctx, t, id)
	if errors.Is(err, core.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := t.Require(access.AdminSnippet, access.OnSnippet(sn)); err != nil {
		return nil, err
	}
	if err := s.p.Snippets.Delete(ctx, t.Project.ID, sn.ID); err != nil {
		return nil, fmt.Errorf("delete snippet: %w", err)
	}
	return &Found{Project: t.Project, Snippet: sn}, nil
}
