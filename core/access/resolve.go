package access

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// Target is one project as one caller sees it: where every
// project-scoped use case starts. Ask it with Can or Require.
type Target struct {
	Caller  *domain.Caller
	Project *domain.Project
	Rights  Rights
	// Namespaces are those the access check read (for a signed-in caller:
	// the project's namespace with its ancestors, and the share groups
	// with theirs), each with its whole chain; nil when none were read.
	// Rendering reuses them instead of reading them again.
	Namespaces []domain.Namespace
	// Standing is what the check read of a signed-in caller's memberships
	// and the project's shares, for rendering to reuse; nil for anonymous.
	Standing *domain.Standing
}

// Resolve finds the project ref names, as caller sees it. A missing
// project and one the caller may not read are the same 404 "Project Not
// Found": existence is never revealed. Each ability in features must hold
// on the project too, or it is the same 404: a use case names the read
// ability of its feature (ReadIssue for the issue tracker, DownloadCode
// for repository content), so that a disabled feature looks like no
// project at all. The zero reference (a path whose {id} named nothing)
// is GitLab's 400 "id is invalid".
func (p *Policy) Resolve(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, features ...Ability) (Target, error) {
	if ref == (domain.IDOrPath{}) {
		return Target{}, core.InvalidParam("id")
	}
	proj, err := p.lookup(ctx, ref)
	if err != nil {
		return Target{}, err
	}
	t, err := p.TargetOf(ctx, caller, proj)
	if err != nil {
		return Target{}, err
	}
	if !t.Rights.Read {
		return Target{}, core.NotFound("Project")
	}
	for _, a := range features {
		if !t.Can(a) {
			return Target{}, core.NotFound("Project")
		}
	}
	return t, nil
}

// ResolveSignedIn is Resolve for writes: an anonymous caller is a 401
// before anything about the project is revealed.
func (p *Policy) ResolveSignedIn(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, features ...Ability) (Target, error) {
	if caller.UserID() == 0 {
		return Target{}, core.Unauthenticated()
	}
	return p.Resolve(ctx, caller, ref, features...)
}

// TargetOf is the target of a project already loaded, for a caller who
// may or may not read it (assignees, mentioned users, merge actors).
func (p *Policy) TargetOf(ctx context.Context, caller *domain.Caller, proj *domain.Project) (Target, error) {
	r, nss, st, err := p.project(ctx, caller, proj)
	if err != nil {
		return Target{}, err
	}
	return Target{Caller: caller, Project: proj, Rights: r, Namespaces: nss, Standing: st}, nil
}

func (p *Policy) lookup(ctx context.Context, ref domain.IDOrPath) (*domain.Project, error) {
	var proj *domain.Project
	var err error
	if ref.Path != "" {
		proj, err = p.projects.GetByFullPath(ctx, ref.Path)
	} else {
		proj, err = p.projects.Get(ctx, ref.ID)
	}
	if errors.Is(err, core.ErrNotFound) {
		return nil, core.NotFound("Project")
	}
	if err != nil {
		return nil, fmt.Errorf("find project: %w", err)
	}
	return proj, nil
}

// IssueViewer is which confidential issues of the target's project the
// caller sees, in the form stores apply in a list query.
func (t Target) IssueViewer() domain.IssueViewer {
	if t.Rights.AtLeast(domain.Reporter) {
		return domain.IssueViewer{All: true, UserID: t.Caller.UserID()}
	}
	return domain.IssueViewer{UserID: t.Caller.UserID()}
}

// SnippetVisibilities are the visibilities of the project's snippets the
// caller may list besides their own (domain.SnippetFilter).
func (t Target) SnippetVisibilities() []domain.Visibility {
	if t.Rights.AtLeast(domain.Guest) {
		return []domain.Visibility{domain.Public, domain.Internal, domain.Private}
	}
	if u := user(t.Caller); u != nil && !u.External {
		return []domain.Visibility{domain.Public, domain.Internal}
	}
	return []domain.Visibility{domain.Public}
}

// GroupTarget is one group as one caller sees it.
type GroupTarget struct {
	Caller *domain.Caller
	Group  *domain.Namespace
	Rights Rights
}

// Group abilities (GitLab's GroupPolicy).
const (
	ReadGroup Ability = "read_group"
	// CreateProjects: masters and owners create projects in the group.
	CreateProjects Ability = "create_projects"
	// AdminGroup: owners change and remove the group and its members.
	AdminGroup       Ability = "admin_group"
	AdminGroupMember Ability = "admin_group_member"
)

// Can reports whether the caller may do a to the group.
func (g GroupTarget) Can(a Ability) bool {
	if g.Group == nil || !g.Rights.Read {
		return false
	}
	signed := user(g.Caller) != nil
	switch a {
	case ReadGroup:
		return true
	case CreateProjects:
		return signed && g.Rights.AtLeast(domain.Master)
	case AdminGroup, AdminGroupMember:
		return signed && g.Rights.AtLeast(domain.Owner)
	}
	return false
}

// Require is Can as an error: nil, 401 for anonymous callers, else 403.
func (g GroupTarget) Require(a Ability) error {
	if g.Can(a) {
		return nil
	}
	if g.Caller.UserID() == 0 {
		return core.Unauthenticated()
	}
	return core.Forbidden("")
}

// ResolveGroup finds the group ref names as caller sees it; missing and
// unreadable groups are the same 404 "Group Not Found".
func (p *Policy) ResolveGroup(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath) (GroupTarget, error) {
	var g *domain.Namespace
	var err error
	if ref.Path != "" {
		g, err = p.namespaces.GetByFullPath(ctx, ref.Path)
	} else {
		g, err = p.namespaces.Get(ctx, ref.ID)
	}
	if errors.Is(err, core.ErrNotFound) || (err == nil && g.Kind != domain.NamespaceGroup) {
		return GroupTarget{}, core.NotFound("Group")
	}
	if err != nil {
		return GroupTarget{}, fmt.Errorf("find group: %w", err)
	}
	r, err := p.Group(ctx, caller, g)
	if err != nil {
		return GroupTarget{}, err
	}
	if !r.Read {
		return GroupTarget{}, core.NotFound("Group")
	}
	return GroupTarget{Caller: caller, Group: g, Rights: r}, nil
}
