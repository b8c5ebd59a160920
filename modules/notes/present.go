package notes

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// presenter renders notes and awards with their authors, loaded in one
// query per response; base is the external URL users link to.
type presenter struct {
	users ports.UserStore
	base  string
}

// authors loads and renders the users with these IDs.
func (p presenter) authors(ctx context.Context, ids ...int64) (users, error) {
	list, err := p.users.GetMany(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("load users: %w", err)
	}
	out := make(users, len(list))
	for i := range list {
		u := apijson.UserBasicOf(p.base, &list[i])
		out[list[i].ID] = &u
	}
	return out, nil
}

func (p presenter) notes(ctx context.Context, l *Listed) ([]noteJSON, error) {
	ids := make([]int64, len(l.Notes))
	for i, n := range l.Notes {
		ids[i] = n.AuthorID
	}
	u, err := p.authors(ctx, ids...)
	if err != nil {
		return nil, err
	}
	out := make([]noteJSON, len(l.Notes))
	for i, n := range l.Notes {
		out[i] = newNoteJSON(n, l.Noteable, u)
	}
	return out, nil
}

// note renders one note; a snippet's answers GitLab 9.x's snippet-shaped
// object when single is set (GET of one note).
func (p presenter) note(ctx context.Context, n *domain.Note, nb *Noteable, single bool) (any, error) {
	u, err := p.authors(ctx, n.AuthorID)
	if err != nil {
		return nil, err
	}
	if single && nb.Type == domain.TargetSnippet {
		return newSnippetNoteJSON(*n, u), nil
	}
	return newNoteJSON(*n, nb, u), nil
}

func (p presenter) award(ctx context.Context, a *domain.Award) (awardJSON, error) {
	u, err := p.authors(ctx, a.UserID)
	if err != nil {
		return awardJSON{}, err
	}
	return newAwardJSON(*a, u), nil
}

func (p presenter) awards(ctx context.Context, list []domain.Award) ([]awardJSON, error) {
	ids := make([]int64, len(list))
	for i, a := range list {
		ids[i] = a.UserID
	}
	u, err := p.authors(ctx, ids...)
	if err != nil {
		return nil, err
	}
	out := make([]awardJSON, len(list))
	for i, a := range list {
		out[i] = newAwardJSON(a, u)
	}
	return out, nil
}
