package notes

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core/domain"
)

// Listed is one page of a noteable's notes and the total.
type Listed struct {
	Noteable *Noteable
	Notes    []domain.Note
	Total    int
}

// List returns one page of the noteable's notes, system notes included,
// ordered as asked (created_at or updated_at, newest first by default;
// the ID breaks ties), and the total.
func (s *Service) List(ctx context.Context, caller *domain.Caller, ref NoteableRef, in ListInput, pg domain.Page) (*Listed, error) {
	_, nb, err := s.noteable(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	notes, total, err := s.p.Notes.Query(ctx, domain.NoteQuery{NoteableType: nb.Type, NoteableID: nb.ID,
		ByUpdated: in.OrderBy == "updated_at", Descending: in.Sort != "asc", Page: pg})
	if err != nil {
		return nil, fmt.Errorf("list notes: %w", err)
	}
	return &Listed{Noteable: nb, Notes: notes, Total: total}, nil
}

// Get returns note id of the noteable.
func (s *Service) Get(ctx context.Context, caller *domain.Caller, ref NoteableRef, id int64) (*domain.Note, *Noteable, error) {
	_, nb, err := s.noteable(ctx, caller, ref)
	if err != nil {
		return nil, nil, err
	}
	n, err := s.note(ctx, nb, id)
	if err != nil {
		return nil, nil, err
	}
	return n, nb, nil
}
