package projects

import (
	"time"

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

// CreateInput is a new project.
type CreateInput struct {
	Settings
	NamespaceID *int64
	Invalid     error // parameter problems, reported after the access checks
}

// Create is POST /projects: the caller creates a project they own. A
// reached projects_limit is a 403.
func (s *Service) Create(ctx context.Context, caller *domain.Caller, in CreateInput) (*domain.Project, error) {
	if caller.UserID() == 0 {
		return nil, core.Unauthenticated()
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	return s.create(ctx, caller, caller.User, in, false)
}

// CreateForUser is POST /projects/user/:user_id: an administrator creates
// a project owned by another user, checked with that user's rights. A
// reached projects_limit is a 400 field map.
func (s *Service) CreateForUser(ctx context.Context, caller *domain.Caller, userID int64, in CreateInput) (*domain.Project, error) {
	if caller.UserID() == 0 {
		return nil, core.Unauthenticated()
	}
	if !caller.IsAdmin() {
		return nil, core.Forbidden("")
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	owner, err := s.user(ctx, userID)
	if err != nil {
		return nil, err
	}
	return s.create(ctx, caller, owner, in, true)
}

// create makes a project owned by owner (the caller, or for administrators
// another user) with its repository. The row is inserted and the
// repository created in one transaction: if the repository cannot be made
// the row rolls back, and if the transaction fails after the repository
// was made the repository goes, so no project exists without its
// repository. forUser selects GitLab's answer to a reached projects_limit:
// 403 for POST /projects, a 400 field map for POST /projects/user/:id.
func (s *Service) create(ctx context.Context, actor *domain.Caller, owner *domain.User, in CreateInput, forUser bool) (*domain.Project, error) {
	creator := actor
	if owner.ID != actor.UserID() {
		creator = asCaller(owner)
	}
	// GitLab's CreateService: the path comes from the name (parameterized),
	// the name from the path.
	name, path := deref(in.Name, ""), deref(in.Path, "")
	switch {
	case strings.TrimSpace(path) == "" && strings.TrimSpace(name) != "":
		path = Parameterize(name)
	case strings.TrimSpace(name) == "" && strings.TrimSpace(path) != "":
		name = path
	}
	in.Name, in.Path = &name, &path

	ns, err := s.targetNamespace(ctx, creator, owner, in.NamespaceID)
	if err != nil {
		return nil, err
	}
	app, err := ports.CurrentSettings(ctx, s.p.Settings)
	if err != nil {
		return nil, fmt.Errorf("application settings: %w", err)
	}
	now := s.now()
	p := &domain.Project{
		NamespaceID:                     ns.ID,
		Visibility:                      app.DefaultProjectVisibility,
		DefaultBranch:                   "master",
		IssuesEnabled:                   true,
		MergeRequestsEnabled:            true,
		JobsEnabled:                     true,
		WikiEnabled:                     true,
		SnippetsEnabled:                 true,
		SharedRunnersEnabled:            true,
		PublicJobs:                      true,
		LFSEnabled:                      true,
		PrintingMergeRequestLinkEnabled: true,
		CreatorID:                       owner.ID,
		ImportStatus:                    domain.ImportNone,
		TagList:                         []string{},
		CreatedAt:                       now,
		UpdatedAt:                       now,
		LastActivityAt:                  now,
	}
	in.Settings.apply(p)
	if err := access.AllowedVisibility(app, actor, p.Visibility); err != nil {
		return nil, err
	}
	if fields := s.validate(&in.Settings, p, ns, nil); len(fields) > 0 {
		return nil, core.Validation(fields)
	}
	repoMade := false
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		reached, limit, err := s.checkLimit(ctx, ns)
		if err != nil {
			return err
		}
		if reached {
			if forUser {
				return core.FieldInvalid("limit_reached", limitMessage(limit))
			}
			return core.Forbidden(limitMessage(limit))
		}
		if err := s.p.Projects.Create(ctx, p); err != nil {
			return projectWriteErr(err, "create project")
		}
		if err := s.addOwnerAsMaster(ctx, p, ns, owner.ID, actor.UserID(), now); err != nil {
			return err
		}
		if err := s.createRepo(ctx, p.ID, p.DefaultBranch); err != nil {
			return err
		}
		repoMade = true
		return s.p.Bus.Publish(ctx, domain.ProjectCreated{Project: *p, Actor: owner.ID})
	})
	if err != nil {
		if repoMade {
			if derr := s.p.Repos.Delete(context.WithoutCancel(ctx), domain.RepoPath(p.ID)); derr != nil {
				s.p.Log.Error("delete the repository of a project that was not created", zap.Int64("project_id", p.ID), zap.Error(derr))
			}
		}
		return nil, err
	}
	s.p.Log.Info("project created", zap.Int64("project_id", p.ID), zap.Int64("namespace_id", ns.ID), zap.Int64("actor_id", actor.UserID()))
	return p, nil
}

// targetNamespace resolves where a new project goes: namespaceID, or the
// owner's personal namespace. One the creator may not create projects in
// is GitLab's {"namespace":["is not valid"]}, whether or not it exists.
func (s *Service) targetNamespace(ctx context.Context, creator *domain.Caller, owner *domain.User, namespaceID *int64) (*domain.Namespace, error) {
	invalid := core.FieldInvalid("namespace", "is not valid")
	if namespaceID == nil {
		return s.personalNamespace(ctx, owner)
	}
	ns, err := s.p.Namespaces.Get(ctx, *namespaceID)
	if errors.Is(err, core.ErrNotFound) {
		return nil, invalid
	}
	if err != nil {
		return nil, fmt.Errorf("namespace: %w", err)
	}
	ok, err := s.canCreateIn(ctx, creator, ns)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, invalid
	}
	return ns, nil
}

// addOwnerAsMaster is GitLab's Projects::CreateService for a project in a
// user's namespace: its owner becomes a master member, so member lists
// show them and a transfer to a group keeps their access.
func (s *Service) addOwnerAsMaster(ctx context.Context, p *domain.Project, ns *domain.Namespace, ownerID, actorID int64, now time.Time) error {
	if ns.Kind != domain.NamespaceUser {
		return nil
	}
	m := &domain.Member{Source: domain.MemberOfProject, SourceID: p.ID, UserID: ownerID,
		AccessLevel: domain.Master, CreatedAt: now, CreatedBy: actorID}
	if err := s.p.Members.Add(ctx, m); err != nil {
		return fmt.Errorf("add the owner of project %d as master: %w", p.ID, err)
	}
	return nil
}
