package snippets

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// Personal snippets (GitLab's /snippets API) belong to their author and
// no project: the store names them by project 0. GitLab records no event
// for them.

// PersonalListed is one page of personal snippets and the total.
type PersonalListed struct {
	Snippets []domain.Snippet
	Total    int
}

// ListOwn is the caller's own personal snippets, every visibility.
func (s *Service) ListOwn(ctx context.Context, caller *domain.Caller, in ListInput) (*PersonalListed, error) {
	if caller.UserID() == 0 {
		return nil, core.Unauthenticated()
	}
	return s.listPersonal(ctx, domain.SnippetFilter{AuthorID: caller.UserID(), Page: in.Page}, in.Invalid)
}

// ListPublic is every user's public personal snippets; GitLab 9.x asks
// for a signed-in caller here too.
func (s *Service) ListPublic(ctx context.Context, caller *domain.Caller, in ListInput) (*PersonalListed, error) {
	if caller.UserID() == 0 {
		return nil, core.Unauthenticated()
	}
	return s.listPersonal(ctx, domain.SnippetFilter{Visibilities: []domain.Visibility{domain.Public}, Page: in.Page}, in.Invalid)
}

func (s *Service) listPersonal(ctx context.Context, f domain.SnippetFilter, invalid error) (*PersonalListed, error) {
	if invalid != nil {
		return nil, invalid
	}
	list, total, err := s.p.Snippets.List(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("list personal snippets: %w", err)
	}
	return &PersonalListed{Snippets: list, Total: total}, nil
}

// GetPersonal reads personal snippet id; one the caller may not read is
// as missing as one that does not exist, and so is an id that cannot
// exist (0).
func (s *Service) GetPersonal(ctx context.Context, caller *domain.Caller, id int64) (*domain.Snippet, error) {
	if id <= 0 {
		return nil, core.NotFound("Snippet")
	}
	sn, err := s.p.Snippets.Get(ctx, 0, id)
	if errors.Is(err, core.ErrNotFound) {
		return nil, core.NotFound("Snippet")
	}
	if err != nil {
		return nil, fmt.Errorf("read personal snippet: %w", err)
	}
	if !access.ReadPersonalSnippet(caller, sn) {
		return nil, core.NotFound("Snippet")
	}
	return sn, nil
}

// CreatePersonal stores a new personal snippet of the caller: 401 for
// anonymous callers, the request's problems (400), 403 for external users
// (create_personal_snippet), then the snippet's own validation. The
// visibility defaults to internal, as in GitLab 9.x.
func (s *Service) CreatePersonal(ctx context.Context, caller *domain.Caller, in PersonalCreateInput, from Origin) (*domain.Snippet, error) {
	if caller.UserID() == 0 {
		return nil, core.Unauthenticated()
	}
	if err := in.validate(); err != nil {
		return nil, err
	}
	if !access.CreatePersonalSnippet(caller) {
		return nil, core.Forbidden("")
	}
	now := s.now()
	sn := &domain.Snippet{AuthorID: caller.UserID(), Title: strings.TrimSpace(in.Title),
		FileName: strings.TrimSpace(in.FileName), Content: in.Content, Visibility: domain.Internal,
		UserAgent: from.UserAgent, IPAddress: from.IP, CreatedAt: now, UpdatedAt: now}
	if in.Visibility != nil {
		sn.Visibility = domain.Visibility(*in.Visibility)
	}
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
		return nil, fmt.Errorf("create personal snippet: %w", err)
	}
	return sn, nil
}

// UpdatePersonal applies an edit by the author or an administrator under
// the store's lock, validating the result: 401, then the request's
// problems (400), the snippet's 404, and 403 to readers who may not
// change it.
func (s *Service) UpdatePersonal(ctx context.Context, caller *domain.Caller, id int64, in PersonalUpdateInput) (*domain.Snippet, error) {
	if caller.UserID() == 0 {
		return nil, core.Unauthenticated()
	}
	if err := in.validate(); err != nil {
		return nil, err
	}
	sn, err := s.adminPersonal(ctx, caller, id)
	if err != nil {
		return nil, err
	}
	return s.save(ctx, caller, 0, sn.ID, in.apply)
}

// DeletePersonal removes a personal snippet the caller may administer. A
// missing one is its 404, as in GitLab 9.x (project snippets' delete is
// idempotent, this one is not).
func (s *Service) DeletePersonal(ctx context.Context, caller *domain.Caller, id int64) error {
	if caller.UserID() == 0 {
		return core.Unauthenticated()
	}
	sn, err := s.adminPersonal(ctx, caller, id)
	if err != nil {
		return err
	}
	if err := s.p.Snippets.Delete(ctx, 0, sn.ID); err != nil {
		return fmt.Errorf("delete personal snippet: %w", err)
	}
	return nil
}

// adminPersonal reads a personal snippet the caller means to change: its
// 404 to those who may not read it, 403 to readers who may not change it.
func (s *Service) adminPersonal(ctx context.Context, caller *domain.Caller, id int64) (*domain.Snippet, error) {
	sn, err := s.GetPersonal(ctx, caller, id)
	if err != nil {
		return nil, err
	}
	if !access.AdminPersonalSnippet(caller, sn) {
		return nil, core.Forbidden("")
	}
	return sn, nil
}

// PersonalUserAgentDetail is what the personal snippet's author sent it
// with, for administrators only (401, 403 before anything is revealed).
func (s *Service) PersonalUserAgentDetail(ctx context.Context, caller *domain.Caller, id int64) (*domain.Snippet, error) {
	if caller.UserID() == 0 {
		return nil, core.Unauthenticated()
	}
	if !caller.IsAdmin() {
		return nil, core.Forbidden("")
	}
	sn, err := s.GetPersonal(ctx, caller, id)
	if err != nil {
		return nil, err
	}
	if sn.UserAgent == "" && sn.IPAddress == "" {
		return nil, core.NotFound("UserAgentDetail")
	}
	return sn, nil
}
