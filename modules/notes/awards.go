package notes

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// AwardableRef names what the award emoji API acts on: a noteable, or one
// of its notes when OnNote is set.
type AwardableRef struct {
	NoteableRef
	OnNote bool
	// NoteID is the note's ID; 0 when the request named none that can
	// exist, which is the note's 404.
	NoteID int64
}

// Awardable is an issue, merge request, snippet or note the caller may
// read, as awards name it.
type Awardable struct {
	Type     string // domain.TargetIssue, TargetMergeRequest, TargetSnippet or TargetNote
	ID       int64
	AuthorID int64
	// System notes take no awards.
	System bool
}

// AwardsListed is one page of an awardable's awards and their total.
type AwardsListed struct {
	Awards []domain.Award
	Total  int
}

// awardable resolves ref for a signed-in caller (the whole API needs one,
// as GitLab's does): 401, then the project's, the noteable's and the
// note's 404s for what is missing or hidden from the caller.
func (s *Service) awardable(ctx context.Context, caller *domain.Caller, ref AwardableRef) (access.Target, *Awardable, error) {
	if caller.UserID() == 0 {
		return access.Target{}, nil, core.Unauthenticated()
	}
	t, nb, err := s.noteable(ctx, caller, ref.NoteableRef)
	if err != nil {
		return t, nil, err
	}
	if !ref.OnNote {
		return t, &Awardable{Type: nb.Type, ID: nb.ID, AuthorID: nb.AuthorID}, nil
	}
	n, err := s.note(ctx, nb, ref.NoteID)
	if err != nil {
		return t, nil, err
	}
	return t, &Awardable{Type: domain.TargetNote, ID: n.ID, AuthorID: n.AuthorID, System: n.System}, nil
}

// ListAwards returns one page of the awardable's awards, oldest first.
// An awardable holds few awards, so the page is cut from all of them.
func (s *Service) ListAwards(ctx context.Context, caller *domain.Caller, ref AwardableRef, pg domain.Page) (*AwardsListed, error) {
	_, aw, err := s.awardable(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	all, err := s.p.Awards.List(ctx, aw.Type, aw.ID)
	if err != nil {
		return nil, fmt.Errorf("list awards: %w", err)
	}
	from := min(pg.Offset(), len(all))
	to := min(from+pg.PerPage, len(all))
	return &AwardsListed{Awards: all[from:to], Total: len(all)}, nil
}

// GetAward returns award id of the awardable.
func (s *Service) GetAward(ctx context.Context, caller *domain.Caller, ref AwardableRef, id int64) (*domain.Award, error) {
	_, aw, err := s.awardable(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	return s.awardOf(ctx, aw, id)
}

// awardOf finds award id among the awardable's; an award of anything
// else, or an id that cannot exist (0), is the award's 404.
func (s *Service) awardOf(ctx context.Context, aw *Awardable, id int64) (*domain.Award, error) {
	if id <= 0 {
		return nil, errNoAward()
	}
	all, err := s.p.Awards.List(ctx, aw.Type, aw.ID)
	if err != nil {
		return nil, fmt.Errorf("read awards: %w", err)
	}
	for i := range all {
		if all[i].ID == id {
			return &all[i], nil
		}
	}
	return nil, errNoAward()
}

// Award gives the awardable the emoji in.Name as the caller. GitLab
// answers every refusal after the read check with a 404 of the award:
// who may not comment (archived projects), a vote on one's own issue,
// merge request, snippet or note, a system note, an unknown name, and the
// same name again.
func (s *Service) Award(ctx context.Context, caller *domain.Caller, ref AwardableRef, in AwardInput) (*domain.Award, error) {
	t, aw, err := s.awardable(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	name := normalizeEmoji(in.Name)
	uid := caller.UserID()
	if !t.Can(access.CreateNote) || aw.System || (aw.AuthorID == uid && isVote(name)) {
		return nil, errNoAward()
	}
	if err := validateAwardName(name); err != nil {
		return nil, err
	}
	now := s.now()
	a := &domain.Award{Name: name, UserID: uid, AwardableType: aw.Type, AwardableID: aw.ID, CreatedAt: now, UpdatedAt: now}
	if err := s.p.Awards.Create(ctx, a); err != nil {
		if errors.Is(err, core.ErrConflict) {
			return nil, errAwardRefused(`{:name=>["has already been taken"]}`)
		}
		return nil, fmt.Errorf("create award: %w", err)
	}
	return a, nil
}

// Unaward removes award id of the awardable: the caller's own, or any as
// an administrator (403 otherwise).
func (s *Service) Unaward(ctx context.Context, caller *domain.Caller, ref AwardableRef, id int64) error {
	_, aw, err := s.awardable(ctx, caller, ref)
	if err != nil {
		return err
	}
	a, err := s.awardOf(ctx, aw, id)
	if err != nil {
		return err
	}
	if a.UserID != caller.UserID() && !caller.IsAdmin() {
		return core.Forbidden("")
	}
	return core.StoreError(s.p.Awards.Delete(ctx, a.ID), "Award Emoji", "delete award")
}

// errNoAward is the award's 404.
func errNoAward() error { return core.NotFound("Award Emoji") }

// errAwardRefused is GitLab's 404 of an award its model refused, which
// names the model's errors as Ruby prints them.
func errAwardRefused(errs string) error { return core.NotFound("Award Emoji " + errs) }
