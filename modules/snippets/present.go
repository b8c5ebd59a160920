package snippets

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// presenter renders snippets of one project with their authors (one
// query for the users of any list); base is the external URL.
type presenter struct {
	users      ports.UserStore
	namespaces ports.NamespaceStore
	base       string
}

func (p presenter) snippets(ctx context.Context, proj *domain.Project, list []domain.Snippet) ([]snippetJSON, error) {
	ns, err := p.namespaces.Get(ctx, proj.NamespaceID)
	if err != nil {
		return nil, fmt.Errorf("namespace of project %d: %w", proj.ID, err)
	}
	projectURL := p.base + "/" + ns.FullPath + "/" + proj.Path
	ids := make([]int64, 0, len(list))
	for _, sn := range list {
		ids = append(ids, sn.AuthorID)
	}
	authors, err := p.authors(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]snippetJSON, 0, len(list))
	for _, sn := range list {
		out = append(out, newSnippetJSON(sn, authors[sn.AuthorID], projectURL))
	}
	return out, nil
}

// authors reads the users of ids in one query; one that is gone renders
// as a null author.
func (p presenter) authors(ctx context.Context, ids []int64) (map[int64]*apijson.UserBasic, error) {
	authors := map[int64]*apijson.UserBasic{}
	if len(ids) == 0 {
		return authors, nil
	}
	users, err := p.users.GetMany(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("authors of snippets: %w", err)
	}
	for i := range users {
		u := apijson.UserBasicOf(p.base, &users[i])
		authors[users[i].ID] = &u
	}
	return authors, nil
}

func (p presenter) snippet(ctx context.Context, f *Found) (snippetJSON, error) {
	out, err := p.snippets(ctx, f.Project, []domain.Snippet{*f.Snippet})
	if err != nil {
		return snippetJSON{}, err
	}
	return out[0], nil
}

// personal renders personal snippets with their authors (one query).
func (p presenter) personal(ctx context.Context, list []domain.Snippet) ([]personalSnippetJSON, error) {
	ids := make([]int64, 0, len(list))
	for _, sn := range list {
		ids = append(ids, sn.AuthorID)
	}
	authors, err := p.authors(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]personalSnippetJSON, 0, len(list))
	for _, sn := range list {
		out = append(out, newPersonalSnippetJSON(sn, authors[sn.AuthorID], p.base))
	}
	return out, nil
}

func (p presenter) personalOne(ctx context.Context, sn *domain.Snippet) (personalSnippetJSON, error) {
	out, err := p.personal(ctx, []domain.Snippet{*sn})
	if err != nil {
		return personalSnippetJSON{}, err
	}
	return out[0], nil
}
