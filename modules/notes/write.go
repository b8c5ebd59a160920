package notes

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
)

// list returns one page of the noteable's notes, system notes included,
// ordered as asked (created_at or updated_at, newest first by default;
// the ID breaks ties), and the total.
func (s *Service) list(ctx context.Context, nb *noteable, in listParams, pg domain.Page) ([]domain.Note, int, error) {
	notes, total, err := s.p.Notes.Query(ctx, domain.NoteQuery{NoteableType: nb.kind.typ, NoteableID: nb.id,
		ByUpdated: in.OrderBy == "updated_at", Descending: in.Sort != "asc", Page: pg})
	if err != nil {
		return nil, 0, fmt.Errorf("list notes: %w", err)
	}
	return notes, total, nil
}

// create stores a comment, moves the noteable's updated_at and publishes
// the NoteEvent, all in one transaction. created_at is honoured on issue
// notes of owners and admins only, as in GitLab.
func (s *Service) create(ctx context.Context, t target, nb *noteable, in createParams) (*domain.Note, error) {
	now := s.now()
	created := now
	if in.CreatedAt != nil && nb.kind.typ == domain.TargetIssue && t.rights.AtLeast(domain.Owner) {
		created = in.CreatedAt.UTC().Truncate(time.Millisecond)
	}
	pid, actor := nb.projectID, t.caller.UserID()
	n := &domain.Note{ProjectID: &pid, NoteableType: nb.kind.typ, NoteableID: nb.id, AuthorID: actor,
		Body: in.Body, CreatedAt: created, UpdatedAt: now}
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.p.Notes.Create(ctx, n); err != nil {
			return fmt.Errorf("create note: %w", err)
		}
		if err := s.touch(ctx, nb, now); err != nil {
			return err
		}
		ev := domain.NoteEvent{Note: *n, Actor: actor, Confidential: nb.confidential}
		if err := s.p.Bus.Publish(ctx, ev); err != nil {
			return fmt.Errorf("publish note: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return n, nil
}

// award gives the noteable the emoji a note body consisted of; a repeat
// answers the award already given. Like GitLab, awarding marks the
// caller's pending todos on the issue or merge request done.
func (s *Service) award(ctx context.Context, t target, nb *noteable, name string) (*domain.Award, error) {
	now, uid := s.now(), t.caller.UserID()
	a := &domain.Award{Name: name, UserID: uid, AwardableType: nb.kind.typ, AwardableID: nb.id, CreatedAt: now, UpdatedAt: now}
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		err := s.p.Awards.Create(ctx, a)
		if errors.Is(err, core.ErrConflict) {
			a, err = s.existingAward(ctx, nb, name, uid)
		}
		if err != nil {
			return err
		}
		if nb.kind.typ == domain.TargetSnippet {
			return nil
		}
		if _, err := s.p.Todos.MarkTargetDone(ctx, uid, domain.Subject{Type: nb.kind.typ, ID: nb.id}); err != nil {
			return fmt.Errorf("mark todos done: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

func (s *Service) existingAward(ctx context.Context, nb *noteable, name string, uid int64) (*domain.Award, error) {
	list, err := s.p.Awards.List(ctx, nb.kind.typ, nb.id)
	if err != nil {
		return nil, fmt.Errorf("read awards: %w", err)
	}
	for i := range list {
		if list[i].UserID == uid && list[i].Name == name {
			return &list[i], nil
		}
	}
	return nil, fmt.Errorf("award %q of user %d: conflict but not found", name, uid)
}

// update replaces the note's body and moves the noteable's updated_at.
func (s *Service) update(ctx context.Context, nb *noteable, note *domain.Note, body string) (*domain.Note, error) {
	now := s.now()
	var out *domain.Note
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		var err error
		out, err = s.p.Notes.Update(ctx, note.ID, func(n *domain.Note) error {
			n.Body, n.UpdatedAt = body, now
			return nil
		})
		if err != nil {
			return notFound(err, "Note", "update note")
		}
		return s.touch(ctx, nb, now)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// delete removes the note with the awards given to it.
func (s *Service) delete(ctx context.Context, nb *noteable, note *domain.Note) error {
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
			return notFound(err, "Note", "delete note")
		}
		return s.touch(ctx, nb, s.now())
	})
}

// users loads the users with these IDs for rendering, in one query;
// base is the external URL.
func (s *Service) users(ctx context.Context, base string, ids ...int64) (users, error) {
	list, err := s.p.Users.GetMany(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("load users: %w", err)
	}
	out := make(users, len(list))
	for i := range list {
		u := apijson.UserBasicOf(base, &list[i])
		out[list[i].ID] = &u
	}
	return out, nil
}
