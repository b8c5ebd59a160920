package projects

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// ForkInput is POST /projects/:id/fork's.
type ForkInput struct {
	// Namespace names the target namespace by ID or full path; empty: the
	// caller's personal namespace.
	Namespace string
	Invalid   error // parameter problems, reported after the access checks
}

// Fork creates a fork of the project ref names in the namespace in names
// and returns it at once with import_status "scheduled". The row and the source's forks_count
// change in one transaction; the repository is copied after it commits,
// in the background, moving import_status to "started" and then to
// "finished" or "failed". The caller must be able to download the source's
// code and create projects in the target; otherwise the target namespace
// is a 404, as in GitLab.
func (s *Service) Fork(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in ForkInput) (*domain.Project, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if err := t.Require(access.ForkProject); err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	src, nsRef := t.Project, in.Namespace
	var ns *domain.Namespace
	if strings.TrimSpace(nsRef) == "" {
		if ns, err = s.personalNamespace(ctx, caller.User); err != nil {
			return nil, err
		}
	} else {
		ns, err = s.namespaceByRef(ctx, strings.TrimSpace(nsRef))
		if errors.Is(err, core.ErrNotFound) {
			return nil, core.NotFound("Target Namespace")
		}
		if err != nil {
			return nil, fmt.Errorf("target namespace: %w", err)
		}
		ok, err := s.canCreateIn(ctx, caller, ns)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, core.NotFound("Target Namespace")
		}
	}
	// The fork is as visible as its source, and no more than its group.
	// A source level the settings restrict becomes the highest level they
	// allow (GitLab's ForkService#allowed_visibility_level).
	app, err := ports.CurrentSettings(ctx, s.p.Settings)
	if err != nil {
		return nil, fmt.Errorf("application settings: %w", err)
	}
	vis := src.Visibility
	if app.Restricted(vis) {
		vis = app.HighestAllowedVisibility()
	}
	if ns.Kind == domain.NamespaceGroup && ns.Visibility.Rank() < vis.Rank() {
		vis = ns.Visibility
	}
	srcID := src.ID
	now := s.now()
	p := &domain.Project{
		NamespaceID:                     ns.ID,
		Name:                            src.Name,
		Path:                            src.Path,
		Description:                     src.Description,
		DefaultBranch:                   src.DefaultBranch,
		Visibility:                      vis,
		IssuesEnabled:                   true,
		MergeRequestsEnabled:            true,
		JobsEnabled:                     true,
		WikiEnabled:                     true,
		SnippetsEnabled:                 true,
		SharedRunnersEnabled:            src.SharedRunnersEnabled,
		PublicJobs:                      true,
		LFSEnabled:                      true,
		PrintingMergeRequestLinkEnabled: true,
		CreatorID:                       caller.UserID(),
		ForkedFromID:                    &srcID,
		ImportStatus:                    domain.ImportScheduled,
		TagList:                         []string{},
		AvatarURL:                       src.AvatarURL,
		CreatedAt:                       now,
		UpdatedAt:                       now,
		LastActivityAt:                  now,
	}
	// GitLab answers every failed fork with 409 and the fork's errors.
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		reached, limit, err := s.checkLimit(ctx, ns)
		if err != nil {
			return err
		}
		if reached {
			return &core.Error{Kind: core.ErrConflict, Fields: map[string][]string{"limit_reached": {limitMessage(limit)}}}
		}
		if err := s.p.Projects.Create(ctx, p); err != nil {
			if errors.Is(err, core.ErrConflict) {
				if f := core.Fields(err); len(f) > 0 {
					return &core.Error{Kind: core.ErrConflict, Fields: f}
				}
			}
			return projectWriteErr(err, "create fork")
		}
		if ns.OwnerID != nil {
			if err := s.addOwnerAsMaster(ctx, p, ns, *ns.OwnerID, caller.UserID(), now); err != nil {
				return err
			}
		}
		if err := s.p.Projects.AddForks(ctx, srcID, 1); err != nil {
			return projectWriteErr(err, "count fork")
		}
		if err := s.p.Bus.Publish(ctx, domain.ProjectCreated{Project: *p, Actor: caller.UserID()}); err != nil {
			return err
		}
		id := p.ID
		s.p.Tx.AfterCommit(ctx, func(context.Context) { s.forks.start(id) })
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.p.Log.Info("fork scheduled", zap.Int64("project_id", p.ID), zap.Int64("source_id", srcID), zap.Int64("actor_id", caller.UserID()))
	return p, nil
}
