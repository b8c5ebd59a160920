package notes

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// editable loads note id of the noteable for a change: writable's checks,
// then the note (404), then admin_note: its author, masters and admins
// (403).
func (s *Service) editable(ctx context.Context, caller *domain.Caller, ref NoteableRef, id int64) (*Noteable, *domain.Note, error) {
	t, nb, err := s.writable(ctx, caller, ref)
	if err != nil {
		return nil, nil, err
	}
	n, err := s.note(ctx, nb, id)
	if err != nil {
		return nil, nil, err
	}
	if err := t.Require(access.AdminNote, access.OnNote(n)); err != nil {
		return nil, nil, err
	}
	return nb, n, nil
}

// Update replaces the note's body and moves the noteable's updated_at.
func (s *Service) Update(ctx context.Context, caller *domain.Caller, ref NoteableRef, id int64, in UpdateInput) (*domain.Note, *Noteable, error) {
	nb, note, err := s.editable(ctx, caller, ref, id)
	if err != nil {
		return nil, nil, err
	}
	now := s.now()
	var out *domain.Note
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		var err error
		out, err = s.p.Notes.Update(ctx, note.ID, func(n *domain.Note) error {
			n.Body, n.UpdatedAt = in.Body, now
			return nil
		})
		if err != nil {
			return core.StoreError(err, "Note", "update note")
		}
		return s.touch(ctx, nb, now)
	})
	if err != nil {
		return nil, nil, err
	}
	return out, nb, nil
}

// Delete removes the note with the awards given to it.
func (s *Service) Delete(ctx context.Context, caller *domain.Caller, ref NoteableRef, id int64) error {
	nb, note, err := s.editable(ctx, caller, ref, id)
	if err != nil {
		return err
	}
	return s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		awards, err := s.p.Awards.List(ctx, domain.TargetNote, note.ID)
		if err != nil {
			return fmt.Errorf("awards of note %d: %w", note.ID, err)
		}
		for _, a := range awards {
			if err := s.p.Awards.Delete(ctx, a.ID); err != nil && !errors.Is(err, core.ErrNotFound) {
				return fmt.Errorf("delete award %d: %w", a.ID, err)
			}
		}
		if err := s.p.Notes.Delete(ctx, note.ID); err != nil {
			return core.StoreError(err, "Note", "delete note")
		}
		return s.touch(ctx, nb, s.now())
	})
}
