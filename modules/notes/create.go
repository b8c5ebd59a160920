package notes

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// Posted is what a POST of a note made: a comment (Note) or, when the
// body was one emoji, an award (Award).
type Posted struct {
	Noteable *Noteable
	Note     *domain.Note
	Award    *domain.Award
}

// Create comments on the noteable, or awards it the emoji the body
// consists of.
func (s *Service) Create(ctx context.Context, caller *domain.Caller, ref NoteableRef, in CreateInput) (*Posted, error) {
	t, nb, err := s.writable(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	out := &Posted{Noteable: nb}
	if name, ok := awardName(in.Body); ok {
		out.Award, err = s.award(ctx, caller, nb, name)
	} else {
		out.Note, err = s.comment(ctx, t, nb, in)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// comment stores a comment, moves the noteable's updated_at and
// publishes the NoteEvent, all in one transaction. created_at is
// honoured on issue notes of owners and admins only, as in GitLab.
func (s *Service) comment(ctx context.Context, t access.Target, nb *Noteable, in CreateInput) (*domain.Note, error) {
	now := s.now()
	created := now
	if in.CreatedAt != nil && nb.Type == domain.TargetIssue && t.Can(access.SetIssueCreatedAt) {
		created = in.CreatedAt.UTC().Truncate(time.Millisecond)
	}
	pid, actor := nb.ProjectID, t.Caller.UserID()
	n := &domain.Note{ProjectID: &pid, NoteableType: nb.Type, NoteableID: nb.ID, AuthorID: actor,
		Body: in.Body, CreatedAt: created, UpdatedAt: now}
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.p.Notes.Create(ctx, n); err != nil {
			return fmt.Errorf("create note: %w", err)
		}
		if err := s.touch(ctx, nb, now); err != nil {
			return err
		}
		ev := domain.NoteEvent{Note: *n, Actor: actor, Confidential: nb.Confidential}
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
func (s *Service) award(ctx context.Context, caller *domain.Caller, nb *Noteable, name string) (*domain.Award, error) {
	now, uid := s.now(), caller.UserID()
	a := &domain.Award{Name: name, UserID: uid, AwardableType: nb.Type, AwardableID: nb.ID, CreatedAt: now, UpdatedAt: now}
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		err := s.p.Awards.Create(ctx, a)
		if errors.Is(err, core.ErrConflict) {
			a, err = s.existingAward(ctx, nb, name, uid)
		}
		if err != nil {
			return err
		}
		if nb.Type == domain.TargetSnippet {
			return nil
		}
		if _, err := s.p.Todos.MarkTargetDone(ctx, uid, domain.Subject{Type: nb.Type, ID: nb.ID}); err != nil {
			return fmt.Errorf("mark todos done: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

func (s *Service) existingAward(ctx context.Context, nb *Noteable, name string, uid int64) (*domain.Award, error) {
	list, err := s.p.Awards.List(ctx, nb.Type, nb.ID)
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
