package ci

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// triggerTokenPrefix marks trigger tokens for secret scanners (later
// GitLab's glptt-).
const triggerTokenPrefix = "glptt-"

// triggerHintLen is how many characters of a token lists show once the
// token itself is gone: later GitLab shows the first four.
const triggerHintLen = 4

// Trigger is a trigger as its entity shows it: Token is the whole token
// right after creation, the hint otherwise.
type Trigger struct {
	domain.Trigger
	Token string
	Owner *domain.User
}

// TriggersListed is one page of a project's triggers and the total.
type TriggersListed struct {
	Triggers []Trigger
	Total    int
}

// TriggerInput is the description of POST and PUT /projects/:id/triggers.
type TriggerInput struct {
	Description *string `param:"description"`
	Invalid     error   `param:"-"`
}

// triggersTarget resolves the project for the triggers API as GitLab's
// authenticate! and authorize! :admin_build do: 401, the project's 404,
// then 403 below master.
func (s *Service) triggersTarget(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath) (access.Target, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref)
	if err != nil {
		return t, err
	}
	return t, t.Require(access.AdminBuild)
}

// loadTrigger reads trigger id of the target's project (GitLab's find:
// 404 Not found).
func (s *Service) loadTrigger(ctx context.Context, t access.Target, id int64) (*domain.Trigger, error) {
	tr, err := s.p.Triggers.Get(ctx, t.Project.ID, id)
	if errors.Is(err, core.ErrNotFound) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read trigger: %w", err)
	}
	return tr, nil
}

// present adds the owners and the shown token to triggers.
func (s *Service) present(ctx context.Context, list []domain.Trigger) ([]Trigger, error) {
	var ids []int64
	for _, tr := range list {
		if tr.OwnerID != nil {
			ids = append(ids, *tr.OwnerID)
		}
	}
	users := map[int64]*domain.User{}
	if len(ids) > 0 {
		us, err := s.p.Users.GetMany(ctx, ids)
		if err != nil {
			return nil, fmt.Errorf("trigger owners: %w", err)
		}
		for i := range us {
			users[us[i].ID] = &us[i]
		}
	}
	out := make([]Trigger, 0, len(list))
	for _, tr := range list {
		v := Trigger{Trigger: tr, Token: tr.TokenHint}
		if tr.OwnerID != nil {
			v.Owner = users[*tr.OwnerID]
		}
		out = append(out, v)
	}
	return out, nil
}

func (s *Service) presentOne(ctx context.Context, tr *domain.Trigger) (*Trigger, error) {
	l, err := s.present(ctx, []domain.Trigger{*tr})
	if err != nil {
		return nil, err
	}
	return &l[0], nil
}

// Triggers lists a page of the project's triggers.
func (s *Service) Triggers(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, pg domain.Page, invalid error) (*TriggersListed, error) {
	t, err := s.triggersTarget(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if invalid != nil {
		return nil, invalid
	}
	list, total, err := s.p.Triggers.List(ctx, t.Project.ID, pg)
	if err != nil {
		return nil, fmt.Errorf("list triggers: %w", err)
	}
	out, err := s.present(ctx, list)
	if err != nil {
		return nil, err
	}
	return &TriggersListed{Triggers: out, Total: total}, nil
}

// TriggerOf reads one trigger.
func (s *Service) TriggerOf(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id TriggerID) (*Trigger, error) {
	t, err := s.triggersTarget(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if id.Invalid != nil {
		return nil, id.Invalid
	}
	tr, err := s.loadTrigger(ctx, t, id.ID)
	if err != nil {
		return nil, err
	}
	return s.presentOne(ctx, tr)
}

// TriggerID is {trigger_id}; Invalid is reported after the access checks.
type TriggerID struct {
	ID      int64
	Invalid error
}

// CreateTrigger makes a trigger owned by the caller. Its token is in the
// answer, and only there: the store keeps its digest.
func (s *Service) CreateTrigger(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in TriggerInput) (*Trigger, error) {
	t, err := s.triggersTarget(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	if in.Description == nil || strings.TrimSpace(*in.Description) == "" {
		return nil, core.MissingParam("description")
	}
	token, err := s.p.TokenGen.NewToken(triggerTokenPrefix)
	if err != nil {
		return nil, fmt.Errorf("trigger token: %w", err)
	}
	owner := caller.UserID()
	now := s.now()
	tr := &domain.Trigger{ProjectID: t.Project.ID, OwnerID: &owner, Description: *in.Description,
		TokenDigest: domain.TokenDigest(token), TokenHint: tokenHint(token), CreatedAt: now, UpdatedAt: now}
	if err := s.p.Triggers.Create(ctx, tr); err != nil {
		return nil, fmt.Errorf("create trigger: %w", err)
	}
	out, err := s.presentOne(ctx, tr)
	if err != nil {
		return nil, err
	}
	out.Token = token
	return out, nil
}

// tokenHint is what lists show of a token: its first characters after
// the prefix.
func tokenHint(token string) string {
	rest := strings.TrimPrefix(token, triggerTokenPrefix)
	if len(rest) > triggerHintLen {
		rest = rest[:triggerHintLen]
	}
	return rest
}

// UpdateTrigger changes the description (absent: unchanged).
func (s *Service) UpdateTrigger(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id TriggerID, in TriggerInput) (*Trigger, error) {
	return s.editTrigger(ctx, caller, ref, id, in.Invalid, func(tr *domain.Trigger) {
		if in.Description != nil {
			tr.Description = *in.Description
		}
	})
}

// TakeTriggerOwnership makes the caller the trigger's owner: its
// pipelines run as the caller from now on.
func (s *Service) TakeTriggerOwnership(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id TriggerID) (*Trigger, error) {
	uid := caller.UserID()
	return s.editTrigger(ctx, caller, ref, id, nil, func(tr *domain.Trigger) { tr.OwnerID = &uid })
}

func (s *Service) editTrigger(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id TriggerID, invalid error, edit func(*domain.Trigger)) (*Trigger, error) {
	t, err := s.triggersTarget(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if id.Invalid != nil {
		return nil, id.Invalid
	}
	if invalid != nil {
		return nil, invalid
	}
	tr, err := s.p.Triggers.Update(ctx, t.Project.ID, id.ID, func(tr *domain.Trigger) error {
		edit(tr)
		tr.UpdatedAt = s.now()
		return nil
	})
	if errors.Is(err, core.ErrNotFound) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("update trigger: %w", err)
	}
	return s.presentOne(ctx, tr)
}

// DeleteTrigger removes a trigger; the pipelines it ran keep their
// variables.
func (s *Service) DeleteTrigger(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id TriggerID) error {
	t, err := s.triggersTarget(ctx, caller, ref)
	if err != nil {
		return err
	}
	if id.Invalid != nil {
		return id.Invalid
	}
	err = s.p.Triggers.Delete(ctx, t.Project.ID, id.ID)
	if errors.Is(err, core.ErrNotFound) {
		return errNotFound
	}
	if err != nil {
		return fmt.Errorf("delete trigger: %w", err)
	}
	return nil
}
