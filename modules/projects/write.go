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
)

// Settings are the project parameters of create, create for user and
// edit; nil fields are not given.
type Settings struct {
	Name, Path, DefaultBranch, Description, ImportURL, CIConfigPath *string
	Visibility                                                      *domain.Visibility
	IssuesEnabled, MergeRequestsEnabled, JobsEnabled, WikiEnabled   *bool
	SnippetsEnabled, ContainerRegistryEnabled, SharedRunnersEnabled *bool
	PublicJobs, OnlyAllowMergeIfPipelineSucceeds                    *bool
	OnlyAllowMergeIfAllDiscussionsAreResolved                       *bool
	LFSEnabled, RequestAccessEnabled                                *bool
	PrintingMergeRequestLinkEnabled                                 *bool
	TagList                                                         *[]string
}

// apply copies the given settings onto p (name and path included).
func (in *Settings) apply(p *domain.Project) {
	str := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	flag := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	str(&p.Name, in.Name)
	str(&p.Path, in.Path)
	str(&p.DefaultBranch, in.DefaultBranch)
	str(&p.Description, in.Description)
	if in.ImportURL != nil {
		p.ImportURL = strings.TrimSpace(*in.ImportURL)
	}
	if in.CIConfigPath != nil {
		p.CIConfigPath = strings.TrimLeft(*in.CIConfigPath, "/")
	}
	if in.Visibility != nil {
		p.Visibility = *in.Visibility
	}
	flag(&p.IssuesEnabled, in.IssuesEnabled)
	flag(&p.MergeRequestsEnabled, in.MergeRequestsEnabled)
	flag(&p.JobsEnabled, in.JobsEnabled)
	flag(&p.WikiEnabled, in.WikiEnabled)
	flag(&p.SnippetsEnabled, in.SnippetsEnabled)
	flag(&p.ContainerRegistryEnabled, in.ContainerRegistryEnabled)
	flag(&p.SharedRunnersEnabled, in.SharedRunnersEnabled)
	flag(&p.PublicJobs, in.PublicJobs)
	flag(&p.OnlyAllowMergeIfPipelineSucceeds, in.OnlyAllowMergeIfPipelineSucceeds)
	flag(&p.OnlyAllowMergeIfAllDiscussionsAreResolved, in.OnlyAllowMergeIfAllDiscussionsAreResolved)
	flag(&p.LFSEnabled, in.LFSEnabled)
	flag(&p.RequestAccessEnabled, in.RequestAccessEnabled)
	flag(&p.PrintingMergeRequestLinkEnabled, in.PrintingMergeRequestLinkEnabled)
	if in.TagList != nil {
		p.TagList = cleanTags(*in.TagList)
	}
}

// validate checks the given settings of p (already applied) as GitLab's
// Project model does; ns is p's namespace, source its fork source if any.
func (s *Service) validate(in *Settings, p *domain.Project, ns *domain.Namespace, source *domain.Project) fieldErrors {
	fields := fieldErrors{}
	if in.Name != nil {
		fields.add("name", nameErrors(p.Name)...)
	}
	if in.Path != nil {
		fields.add("path", pathErrors(p.Path)...)
	}
	if in.ImportURL != nil {
		fields.add("import_url", importURLErrors(p.ImportURL)...)
	}
	if in.CIConfigPath != nil {
		fields.add("ci_config_path", ciConfigPathErrors(p.CIConfigPath)...)
	}
	if in.DefaultBranch != nil && !validBranch(p.DefaultBranch) {
		fields.add("default_branch", "is invalid")
	}
	if in.TagList != nil {
		for _, t := range p.TagList {
			if len(t) > maxTagLength {
				fields.add("tag_list", "is too long (maximum is 255 characters)")
				break
			}
		}
	}
	if in.Visibility != nil {
		fields.add("visibility_level", visibilityErrors(p.Visibility, ns, source)...)
	}
	return fields
}

// visibilityErrors are GitLab 9.x's visibility_level_allowed_by_group and
// visibility_level_allowed_as_fork.
func visibilityErrors(v domain.Visibility, ns *domain.Namespace, source *domain.Project) []string {
	var msgs []string
	if ns != nil && ns.Kind == domain.NamespaceGroup && v.Rank() > ns.Visibility.Rank() {
		msgs = append(msgs, string(v)+" is not allowed in a "+string(ns.Visibility)+" group.")
	}
	if source != nil && v.Rank() > source.Visibility.Rank() {
		msgs = append(msgs, string(v)+" is not allowed since the fork source project has lower visibility.")
	}
	return msgs
}

// CreateInput is a new project.
type CreateInput struct {
	Settings
	NamespaceID *int64
}

// Create makes a project owned by owner (the caller, or for administrators
// another user) with its repository. The row is inserted and the
// repository created in one transaction: if the repository cannot be made
// the row rolls back, and if the transaction fails after the repository
// was made the repository goes, so no project exists without its
// repository. forUser selects GitLab's answer to a reached projects_limit:
// 403 for POST /projects, a 400 field map for POST /projects/user/:id.
func (s *Service) Create(ctx context.Context, actor *domain.Caller, owner *domain.User, in CreateInput, forUser bool) (*domain.Project, error) {
	if actor.UserID() == 0 {
		return nil, core.Unauthenticated()
	}
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
	now := s.now()
	p := &domain.Project{
		NamespaceID:                     ns.ID,
		Visibility:                      domain.Private,
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
		if err := s.createRepo(ctx, p.ID, p.DefaultBranch); err != nil {
			return err
		}
		repoMade = true
		return s.p.Bus.Publish(ctx, domain.ProjectCreated{Project: *p, Actor: owner.ID})
	})
	if err != nil {
		if repoMade {
			if derr := s.p.Repos.Delete(context.WithoutCancel(ctx), domain.RepoPath(p.ID)); derr != nil {
				s.log.Error("delete the repository of a project that was not created", zap.Int64("project_id", p.ID), zap.Error(derr))
			}
		}
		return nil, err
	}
	s.log.Info("project created", zap.Int64("project_id", p.ID), zap.Int64("namespace_id", ns.ID), zap.Int64("actor_id", actor.UserID()))
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

// Update changes a project's settings. Masters change settings; renaming,
// moving the path and changing the visibility are owners' (GitLab's
// rename_project and change_visibility_level). A new default branch must
// exist in the repository.
func (s *Service) Update(ctx context.Context, caller *domain.Caller, proj *domain.Project, r access.Rights, in Settings) (*domain.Project, error) {
	if err := need(caller, r, domain.Master); err != nil {
		return nil, err
	}
	if in.Name != nil || in.Visibility != nil || (in.Path != nil && *in.Path != proj.Path) {
		if err := need(caller, r, domain.Owner); err != nil {
			return nil, err
		}
	}
	ns, err := s.p.Namespaces.Get(ctx, proj.NamespaceID)
	if err != nil {
		return nil, fmt.Errorf("project namespace: %w", err)
	}
	var source *domain.Project
	if proj.ForkedFromID != nil && in.Visibility != nil {
		if source, err = s.p.Projects.Get(ctx, *proj.ForkedFromID); errors.Is(err, core.ErrNotFound) {
			source = nil
		} else if err != nil {
			return nil, fmt.Errorf("fork source: %w", err)
		}
	}
	next := *proj
	in.apply(&next)
	fields := s.validate(&in, &next, ns, source)
	if len(fields) > 0 {
		return nil, core.Validation(fields)
	}
	if in.DefaultBranch != nil && next.DefaultBranch != proj.DefaultBranch {
		// Git first (HEAD names the branch), then the record: a failure
		// between them leaves HEAD ahead, and the next update repairs it.
		err := s.p.Repos.SetDefaultBranch(ctx, domain.RepoPath(proj.ID), next.DefaultBranch)
		switch {
		case errors.Is(err, core.ErrNotFound), errors.Is(err, core.ErrInvalid):
			return nil, core.FieldInvalid("base", "Could not change HEAD: branch '"+next.DefaultBranch+"' does not exist")
		case err != nil:
			return nil, fmt.Errorf("set default branch: %w", err)
		}
	}
	var out *domain.Project
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		now := s.now()
		var err error
		out, err = s.p.Projects.Update(ctx, proj.ID, func(p *domain.Project) error {
			in.apply(p)
			p.UpdatedAt = now
			p.LastActivityAt = now
			return nil
		})
		if err != nil {
			return projectWriteErr(err, "update project")
		}
		return s.p.Bus.Publish(ctx, domain.ProjectUpdated{Project: *out, Actor: caller.UserID()})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Delete removes a project (owners and administrators): the row, its
// memberships, shares and stars in one transaction, then the repository
// once it commits. Forks of it stay, no longer forked from anything; the
// project it was forked from counts one fork less.
func (s *Service) Delete(ctx context.Context, caller *domain.Caller, proj *domain.Project, r access.Rights) error {
	if err := need(caller, r, domain.Owner); err != nil {
		return err
	}
	return s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.deleteInTx(ctx, proj, caller.UserID()); err != nil {
			return err
		}
		if err := s.p.Projects.Delete(ctx, proj.ID); err != nil {
			return projectWriteErr(err, "delete project")
		}
		s.deleteReposAfterCommit(ctx, []string{domain.RepoPath(proj.ID)})
		return nil
	})
}

// deleteInTx does what goes with deleting a project, before its row goes:
// the event, and the fork count of its source.
func (s *Service) deleteInTx(ctx context.Context, proj *domain.Project, actor int64) error {
	if err := s.p.Bus.Publish(ctx, domain.ProjectDestroyed{Project: *proj, Actor: actor}); err != nil {
		return err
	}
	if proj.ForkedFromID != nil {
		if err := s.p.Projects.AddForks(ctx, *proj.ForkedFromID, -1); err != nil && !errors.Is(err, core.ErrNotFound) {
			return fmt.Errorf("fork count: %w", err)
		}
	}
	return nil
}

// SetArchived archives or unarchives a project (owners and
// administrators); repeating it changes nothing.
func (s *Service) SetArchived(ctx context.Context, caller *domain.Caller, proj *domain.Project, r access.Rights, archived bool) (*domain.Project, error) {
	if err := need(caller, r, domain.Owner); err != nil {
		return nil, err
	}
	if proj.Archived == archived {
		return proj, nil
	}
	var out *domain.Project
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		var err error
		out, err = s.p.Projects.Update(ctx, proj.ID, func(p *domain.Project) error {
			p.Archived = archived
			return nil
		})
		return projectWriteErr(err, "archive project")
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Star stars (or unstars) the project for the caller; a repeat is
// core.ErrNotModified (304).
func (s *Service) Star(ctx context.Context, caller *domain.Caller, proj *domain.Project, star bool) (*domain.Project, error) {
	if caller.UserID() == 0 {
		return nil, core.Unauthenticated()
	}
	var changed bool
	var err error
	if star {
		changed, err = s.p.Projects.Star(ctx, caller.UserID(), proj.ID)
	} else {
		changed, err = s.p.Projects.Unstar(ctx, caller.UserID(), proj.ID)
	}
	if err != nil {
		return nil, projectWriteErr(err, "star project")
	}
	if !changed {
		return nil, &core.Error{Kind: core.ErrNotModified}
	}
	out, err := s.p.Projects.Get(ctx, proj.ID)
	if err != nil {
		return nil, projectWriteErr(err, "reload project")
	}
	return out, nil
}
