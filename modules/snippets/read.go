package snippets

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// Listed is one page of a project's snippets and the total.
type Listed struct {
	Project  *domain.Project
	Snippets []domain.Snippet
	Total    int
}

// List returns the page of the project's snippets the caller may see:
// those of the visibilities the policy allows, and the caller's own. A
// project the caller may not read, or with snippets off, is its 404.
func (s *Service) List(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in ListInput) (*Listed, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref, access.ReadSnippet)
	if err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	list, total, err := s.p.Snippets.List(ctx, domain.SnippetFilter{ProjectID: t.Project.ID,
		Visibilities: t.SnippetVisibilities(), AuthorID: caller.UserID(), Page: in.Page})
	if err != nil {
		return nil, fmt.Errorf("list snippets: %w", err)
	}
	return &Listed{Project: t.Project, Snippets: list, Total: total}, nil
}

// Get reads snippet id of the project.
func (s *Service) Get(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id int64) (*Found, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref, access.ReadSnippet)
	if err != nil {
		return nil, err
	}
	sn, err := s.load(ctx, t, id)
	if err != nil {
		return nil, err
	}
	return &Found{Project: t.Project, Snippet: sn}, nil
}

// UserAgentDetail is what the snippet's author sent it with, for
// administrators only (401, 403 before anything is revealed).
func (s *Service) UserAgentDetail(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id int64) (*domain.Snippet, error) {
	if caller.UserID() == 0 {
		return nil, core.Unauthenticated()
	}
	if !caller.IsAdmin() {
		return nil, core.Forbidden("")
	}
	f, err := s.Get(ctx, caller, ref, id)
	if err != nil {
		return nil, err
	}
	if f.Snippet.UserAgent == "" && f.Snippet.IPAddress == "" {
		return nil, core.NotFound("UserAgentDetail")
	}
	return f.Snippet, nil
}
