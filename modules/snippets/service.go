package snippets

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
)

// Params are the service's dependencies, provided by the app.
type Params struct {
	fx.In
	Snippets   ports.SnippetStore
	Users      ports.UserStore
	Namespaces ports.NamespaceStore
	Clock      ports.Clock
	Policy     *access.Policy
}

// Service holds the snippet use cases.
type Service struct{ p Params }

// NewService builds the service.
func NewService(p Params) *Service { return &Service{p: p} }

// now is truncated to milliseconds, the precision clients see.
func (s *Service) now() time.Time { return s.p.Clock.Now().UTC().Truncate(time.Millisecond) }

// target is a project whose snippets the caller may see.
type target struct {
	caller  *domain.Caller
	project *domain.Project
	rights  access.Rights
}

// project resolves {id} to a project whose snippets the caller may read;
// anything else, snippets_enabled off included, is the project's 404.
func (s *Service) project(r *http.Request) (target, error) {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return target{}, err
	}
	caller := httpx.CallerOf(r)
	p, rights, err := s.p.Policy.ProjectByRef(r.Context(), caller, ref)
	if err != nil {
		return target{}, err
	}
	if !access.CanReadSnippets(p, rights) {
		return target{}, core.NotFound("Project")
	}
	return target{caller: caller, project: p, rights: rights}, nil
}

// signedIn is project for writes: 401 before anything is revealed.
func (s *Service) signedIn(r *http.Request) (target, error) {
	if _, err := httpx.RequireUser(r); err != nil {
		return target{}, err
	}
	return s.project(r)
}

// load reads {snippet_id} of the target's project; one the caller may not
// read is as missing as one that does not exist.
func (s *Service) load(r *http.Request, t target) (*domain.Snippet, error) {
	id, err := httpx.IDParam(r, "snippet_id", "Snippet")
	if err != nil {
		return nil, err
	}
	sn, err := s.p.Snippets.Get(r.Context(), t.project.ID, id)
	if errors.Is(err, core.ErrNotFound) {
		return nil, core.NotFound("Snippet")
	}
	if err != nil {
		return nil, fmt.Errorf("read snippet: %w", err)
	}
	if !access.CanReadSnippet(t.caller, t.project, t.rights, sn) {
		return nil, core.NotFound("Snippet")
	}
	return sn, nil
}

// canCreate is GitLab's create_project_snippet: reporters and up.
func (t target) canCreate() bool { return t.rights.AtLeast(domain.Reporter) }

// canAdmin is GitLab's update/admin_project_snippet: the author, masters
// and up.
func (t target) canAdmin(sn *domain.Snippet) bool {
	return t.rights.AtLeast(domain.Master) || (t.caller.UserID() != 0 && sn.AuthorID == t.caller.UserID())
}

// list returns the page of the project's snippets the caller may see:
// those of the visibilities the policy allows, and the caller's own.
func (s *Service) list(ctx context.Context, t target, pg domain.Page) ([]domain.Snippet, int, error) {
	list, total, err := s.p.Snippets.List(ctx, domain.SnippetFilter{ProjectID: t.project.ID,
		Visibilities: access.SnippetVisibilities(t.caller, t.rights), AuthorID: t.caller.UserID(), Page: pg})
	if err != nil {
		return nil, 0, fmt.Errorf("list snippets: %w", err)
	}
	return list, total, nil
}

// create stores a new snippet of the caller with the client's user agent
// and address.
func (s *Service) create(ctx context.Context, t target, in createParams, userAgent, ip string) (*domain.Snippet, error) {
	if !t.canCreate() {
		return nil, core.Forbidden("")
	}
	now := s.now()
	sn := &domain.Snippet{ProjectID: t.project.ID, AuthorID: t.caller.UserID(), Title: strings.TrimSpace(in.Title),
		FileName: strings.TrimSpace(in.FileName), Content: in.Code, Visibility: domain.Visibility(in.Visibility),
		UserAgent: userAgent, IPAddress: ip, CreatedAt: now, UpdatedAt: now}
	if in.Description != nil {
		sn.Description = *in.Description
	}
	if err := validate(sn); err != nil {
		return nil, err
	}
	if err := s.p.Snippets.Create(ctx, sn); err != nil {
		return nil, fmt.Errorf("create snippet: %w", err)
	}
	return sn, nil
}

// update applies an edit by the author or a master under the store's
// lock, validating the result.
func (s *Service) update(ctx context.Context, t target, sn *domain.Snippet, in updateParams) (*domain.Snippet, error) {
	if !t.canAdmin(sn) {
		return nil, core.Forbidden("")
	}
	out, err := s.p.Snippets.Update(ctx, t.project.ID, sn.ID, func(x *domain.Snippet) error {
		if in.Title != nil {
			x.Title = strings.TrimSpace(*in.Title)
		}
		if in.FileName != nil {
			x.FileName = strings.TrimSpace(*in.FileName)
		}
		if in.Code != nil {
			x.Content = *in.Code
		}
		if in.Description != nil {
			x.Description = *in.Description
		}
		if in.Visibility != nil {
			x.Visibility = domain.Visibility(*in.Visibility)
		}
		x.UpdatedAt = s.now()
		return validate(x)
	})
	if errors.Is(err, core.ErrNotFound) {
		return nil, core.NotFound("Snippet")
	}
	if err != nil && !errors.Is(err, core.ErrInvalid) {
		return nil, fmt.Errorf("update snippet: %w", err)
	}
	return out, err
}

// delete removes a snippet the caller may administer, with its notes and
// awards.
func (s *Service) delete(ctx context.Context, t target, sn *domain.Snippet) error {
	if !t.canAdmin(sn) {
		return core.Forbidden("")
	}
	if err := s.p.Snippets.Delete(ctx, t.project.ID, sn.ID); err != nil {
		return fmt.Errorf("delete snippet: %w", err)
	}
	return nil
}

// render presents snippets of the target's project with their authors
// (one query for the users of any list).
func (s *Service) render(r *http.Request, t target, list []domain.Snippet) ([]snippetJSON, error) {
	ctx := r.Context()
	base := httpx.BaseURL(r)
	ns, err := s.p.Namespaces.Get(ctx, t.project.NamespaceID)
	if err != nil {
		return nil, fmt.Errorf("namespace of project %d: %w", t.project.ID, err)
	}
	projectURL := base + "/" + ns.FullPath + "/" + t.project.Path
	ids := make([]int64, 0, len(list))
	for _, sn := range list {
		ids = append(ids, sn.AuthorID)
	}
	authors := map[int64]*apijson.UserBasic{}
	if len(ids) > 0 {
		users, err := s.p.Users.GetMany(ctx, ids)
		if err != nil {
			return nil, fmt.Errorf("authors of snippets: %w", err)
		}
		for i := range users {
			u := apijson.UserBasicOf(base, &users[i])
			authors[users[i].ID] = &u
		}
	}
	out := make([]snippetJSON, 0, len(list))
	for _, sn := range list {
		out = append(out, snippetJSON{ID: sn.ID, Title: sn.Title, FileName: sn.FileName, Description: sn.Description,
			Author: authors[sn.AuthorID], UpdatedAt: httpx.TimeOf(sn.UpdatedAt), CreatedAt: httpx.TimeOf(sn.CreatedAt),
			ProjectID: sn.ProjectID, WebURL: snippetURL(projectURL, sn.ID), ExpiresAt: httpx.TimePtr(sn.ExpiresAt),
			Visibility: string(sn.Visibility)})
	}
	return out, nil
}
