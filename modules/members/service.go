package members

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Params are the service's dependencies, provided by the app.
type Params struct {
	fx.In
	Members    ports.MemberStore
	Users      ports.UserStore
	Namespaces ports.NamespaceStore
	Tx         ports.TxManager
	Bus        ports.EventBus
	Clock      ports.Clock
	Policy     *access.Policy
}

// Service holds the members use cases. It never sees HTTP types. Each use
// case resolves the project or group its input names with core/access: a
// user first for writes (401), then a readable source (404), then the
// ability to manage its members (403). Inputs carry the request's parameter
// problems in Invalid; a use case reports them only after its access checks,
// so callers who may not use an endpoint learn nothing from its validation.
type Service struct{ p Params }

// NewService builds the service.
func NewService(p Params) *Service { return &Service{p: p} }

// Ref names a project or a group by numeric ID or by full path.
type Ref struct {
	Kind   domain.MemberSource
	Source domain.IDOrPath
}

// UserRef names one member by user ID. Invalid is a malformed ID (a 400),
// reported once the source resolves.
type UserRef struct {
	ID      int64
	Invalid error
}

// Entry is a membership with its user.
type Entry struct {
	Member domain.Member
	User   domain.User
}

// source is a project or group the caller may read.
type source struct {
	kind    domain.MemberSource
	id      int64
	project *domain.Project // set for projects
	// manage is nil when the caller may add, change and remove members
	// (GitLab 9.x's admin_project_member, admin_group_member), else why not.
	manage error
}

func (s *Service) now() time.Time { return s.p.Clock.Now().UTC() }

// source resolves ref for caller: a write needs a signed-in caller (401);
// a project or group that is missing or that the caller may not read is a
// 404 either way.
func (s *Service) source(ctx context.Context, caller *domain.Caller, ref Ref, write bool) (*source, error) {
	if write && caller.UserID() == 0 {
		return nil, core.Unauthenticated()
	}
	switch ref.Kind {
	case domain.MemberOfProject:
		t, err := s.p.Policy.Resolve(ctx, caller, ref.Source)
		if err != nil {
			return nil, err
		}
		return &source{kind: ref.Kind, id: t.Project.ID, project: t.Project, manage: t.Require(access.AdminProjectMember)}, nil
	case domain.MemberOfGroup:
		g, err := s.p.Policy.ResolveGroup(ctx, caller, ref.Source)
		if err != nil {
			return nil, err
		}
		return &source{kind: ref.Kind, id: g.Group.ID, manage: g.Require(access.AdminGroupMember)}, nil
	}
	return nil, fmt.Errorf("members: unknown source kind %q", ref.Kind)
}

// managed resolves ref for a caller who must manage its members.
func (s *Service) managed(ctx context.Context, caller *domain.Caller, ref Ref) (*source, error) {
	src, err := s.source(ctx, caller, ref, true)
	if err != nil {
		return nil, err
	}
	if src.manage != nil {
		return nil, src.manage
	}
	return src, nil
}

// projectID is what membership events carry: the project, nil for groups.
func (src *source) projectID() *int64 {
	if src.kind != domain.MemberOfProject {
		return nil
	}
	id := src.id
	return &id
}

// member loads one direct membership; 404 "Member Not Found" when absent.
func (s *Service) member(ctx context.Context, src *source, userID int64) (*domain.Member, error) {
	m, err := s.p.Members.Get(ctx, src.kind, src.id, userID)
	if errors.Is(err, core.ErrNotFound) {
		return nil, core.NotFound("Member")
	}
	if err != nil {
		return nil, fmt.Errorf("get member: %w", err)
	}
	return m, nil
}

// protected refuses changes GitLab's member policies prevent: the last
// active owner of a group, and the owner of a project's personal namespace.
func (s *Service) protected(ctx context.Context, src *source, m *domain.Member) error {
	switch src.kind {
	case domain.MemberOfGroup:
		if m.AccessLevel != domain.Owner || !m.Active(s.now()) {
			return nil
		}
		n, err := s.p.Members.CountOwners(ctx, src.id)
		if err != nil {
			return fmt.Errorf("count owners: %w", err)
		}
		if n <= 1 {
			return core.Forbidden("")
		}
	case domain.MemberOfProject:
		ns, err := s.p.Namespaces.Get(ctx, src.project.NamespaceID)
		if err != nil {
			return fmt.Errorf("project namespace: %w", err)
		}
		if ns.Kind == domain.NamespaceUser && ns.OwnerID != nil && *ns.OwnerID == m.UserID {
			return core.Forbidden("")
		}
	}
	return nil
}

func (s *Service) entry(ctx context.Context, m *domain.Member) (*Entry, error) {
	entries, err := s.withUsers(ctx, []domain.Member{*m})
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, core.NotFound("User")
	}
	return &entries[0], nil
}

// withUsers loads the members' users in one query, keeping the order;
// memberships whose user is gone are left out.
func (s *Service) withUsers(ctx context.Context, ms []domain.Member) ([]Entry, error) {
	if len(ms) == 0 {
		return []Entry{}, nil
	}
	ids := make([]int64, len(ms))
	for i, m := range ms {
		ids[i] = m.UserID
	}
	users, err := s.p.Users.GetMany(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("load member users: %w", err)
	}
	byID := make(map[int64]*domain.User, len(users))
	for i := range users {
		byID[users[i].ID] = &users[i]
	}
	out := make([]Entry, 0, len(ms))
	for _, m := range ms {
		if u := byID[m.UserID]; u != nil {
			out = append(out, Entry{Member: m, User: *u})
		}
	}
	return out, nil
}
