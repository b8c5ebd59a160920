package ci

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// errTriggerNotFound is GitLab's not_found! of the trigger API: an
// unknown project, an unknown token and a token of another project look
// the same, so a token reveals nothing of projects it does not open.
var errTriggerNotFound = &core.Error{Kind: core.ErrNotFound, Msg: "404 Not Found"}

// errNoPipelineRights is GitLab's refusal when the trigger's owner may not
// create pipelines (any more), or a legacy trigger names a protected ref.
const errNoPipelineRights = "Insufficient permissions to create a new pipeline"

// RunTriggerInput is POST /projects/:id/(ref/:ref/)trigger/pipeline: the
// token, the branch or tag (the path's wins over the body's) and the
// variables passed to every job.
type RunTriggerInput struct {
	Token     string
	Ref       string
	Variables []domain.TriggerVariable
}

// RunTrigger creates a pipeline (source trigger) for the head of a branch
// or tag, as the trigger's owner (GitLab's PipelineTriggerService). The
// request and its variables are recorded with the pipeline; a
// configuration error makes a failed pipeline, as GitLab saves it.
func (s *Service) RunTrigger(ctx context.Context, ref domain.IDOrPath, in RunTriggerInput) (*domain.Pipeline, error) {
	proj, err := s.projectOf(ctx, ref)
	if err != nil {
		return nil, err
	}
	tr, err := s.p.Triggers.GetByToken(ctx, domain.TokenDigest(in.Token))
	if errors.Is(err, core.ErrNotFound) || err == nil && tr.ProjectID != proj.ID {
		return nil, errTriggerNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("find trigger: %w", err)
	}
	if !proj.JobsEnabled {
		return nil, refusal("Pipeline is disabled").apiError()
	}
	owner, err := s.triggerOwner(ctx, tr, proj)
	if err != nil {
		return nil, err
	}
	repo := domain.RepoPath(proj.ID)
	r := request{project: proj, source: domain.SourceTrigger, ref: in.Ref, before: domain.ZeroID, saveErrors: true}
	if owner.Caller != nil {
		r.userID = owner.Caller.UserID()
	}
	if b, err := s.p.Reader.Branch(ctx, repo, in.Ref); err == nil {
		r.sha = b.Commit.ID
		if err := s.triggerMayUpdate(ctx, owner, in.Ref); err != nil {
			return nil, err
		}
	} else if tg, err := s.p.Reader.Tag(ctx, repo, in.Ref); err == nil {
		r.sha, r.tag = tg.Commit.ID, true
	} else {
		return nil, refusal("Reference not found").apiError()
	}
	r.record = func(ctx context.Context, p *domain.Pipeline) error {
		req := &domain.TriggerRequest{TriggerID: &tr.ID, PipelineID: p.ID, Variables: in.Variables, CreatedAt: p.CreatedAt}
		if err := s.p.Triggers.Record(ctx, req); err != nil {
			return fmt.Errorf("record trigger request: %w", err)
		}
		used := p.CreatedAt
		_, err := s.p.Triggers.Update(ctx, proj.ID, tr.ID, func(t *domain.Trigger) error {
			t.LastUsedAt = &used
			return nil
		})
		if err != nil {
			return fmt.Errorf("trigger last used: %w", err)
		}
		return nil
	}
	p, err := s.create(ctx, r)
	var rf refusal
	if errors.As(err, &rf) {
		return nil, rf.apiError()
	}
	return p, err
}

// projectOf finds the project of a trigger request whatever its
// visibility: the token, not a user, opens it.
func (s *Service) projectOf(ctx context.Context, ref domain.IDOrPath) (*domain.Project, error) {
	var proj *domain.Project
	var err error
	switch {
	case ref.Path != "":
		proj, err = s.p.Projects.GetByFullPath(ctx, ref.Path)
	case ref.ID > 0:
		proj, err = s.p.Projects.Get(ctx, ref.ID)
	default:
		return nil, errTriggerNotFound
	}
	if errors.Is(err, core.ErrNotFound) {
		return nil, errTriggerNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("find project: %w", err)
	}
	return proj, nil
}

// triggerOwner is the project as the trigger's owner sees it, checked
// for create_pipeline: an owner who lost access (left, demoted below
// developer, blocked, or the project archived) runs nothing. A legacy
// trigger has no owner: its target has no caller.
func (s *Service) triggerOwner(ctx context.Context, tr *domain.Trigger, proj *domain.Project) (access.Target, error) {
	if tr.OwnerID == nil {
		return access.Target{Project: proj}, nil
	}
	u, err := s.p.Users.Get(ctx, *tr.OwnerID)
	if errors.Is(err, core.ErrNotFound) {
		return access.Target{}, refusal(errNoPipelineRights).apiError()
	}
	if err != nil {
		return access.Target{}, fmt.Errorf("trigger owner: %w", err)
	}
	t, err := s.p.Policy.TargetOf(ctx, &domain.Caller{User: u}, proj)
	if err != nil {
		return access.Target{}, err
	}
	if !t.Can(access.CreatePipeline) {
		return access.Target{}, refusal(errNoPipelineRights).apiError()
	}
	return t, nil
}

// triggerMayUpdate: the owner must be allowed to update the branch
// (can_update_branch?); a legacy trigger runs on unprotected branches
// only.
func (s *Service) triggerMayUpdate(ctx context.Context, owner access.Target, branch string) error {
	if owner.Caller == nil {
		rules, err := s.p.Protected.List(ctx, owner.Project.ID)
		if err != nil {
			return fmt.Errorf("protected branches: %w", err)
		}
		if _, protected := domain.Protection(rules, branch); protected {
			return refusal(errNoPipelineRights).apiError()
		}
		return nil
	}
	ok, err := s.mayUpdateBranch(ctx, owner, branch)
	if err != nil {
		return err
	}
	if !ok {
		return refusal(fmt.Sprintf("Insufficient permissions for protected ref '%s'", branch)).apiError()
	}
	return nil
}
