package members

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

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
	Log        *zap.Logger `optional:"true"`
}

// Service holds the members use cases. It never sees HTTP types.
type Service struct {
	p   Params
	log *zap.Logger
}

// NewService builds the service.
func NewService(p Params) *Service {
	log := p.Log
	if log == nil {
		log = zap.NewNop()
	}
	return &Service{p: p, log: log}
}

// Ref names a project or a group by numeric ID or by full path.
type Ref struct {
	Kind domain.MemberSource
	ID   int64
	Path string
}

// Source is a project or group the caller may read, with the caller's rights.
type Source struct {
	Kind    domain.MemberSource
	ID      int64
	Rights  access.Rights
	Project *domain.Project   // set for projects
	Group   *domain.Namespace // set for groups
}

// CanManage reports whether the caller may add, change and remove members:
// masters of a project, owners of a group, administrators (GitLab 9.x's
// admin_project / admin_group abilities).
func (src *Source) CanManage() bool {
	if src.Kind == domain.MemberOfGroup {
		return src.Rights.AtLeast(domain.Owner)
	}
	return src.Rights.AtLeast(domain.Master)
}

// projectID is what membership events carry: the project, nil for groups.
func (src *Source) projectID() *int64 {
	if src.Kind != domain.MemberOfProject {
		return nil
	}
	id := src.ID
	return &id
}

// Entry is a membership with its user.
type Entry struct {
	Member domain.Member
	User   domain.User
}

// AddInput is a new membership.
type AddInput struct {
	UserID    int64
	Level     domain.AccessLevel
	ExpiresAt *time.Time // a date; nil: never
}

// UpdateInput changes a membership. ExpiresAt applies when ExpiresSet
// (nil then clears the date).
type UpdateInput struct {
	Level      domain.AccessLevel
	ExpiresAt  *time.Time
	ExpiresSet bool
}

func (s *Service) now() time.Time { return s.p.Clock.Now().UTC() }

// Source resolves ref for caller. A project or group that is missing or
// that the caller may not read is a 404 either way.
func (s *Service) Source(ctx context.Context, caller *domain.Caller, ref Ref) (*Source, error) {
	switch ref.Kind {
	case domain.MemberOfProject:
		p, r, err := s.p.Policy.ProjectByRef(ctx, caller, domain.IDOrPath{ID: ref.ID, Path: ref.Path})
		if err != nil {
			return nil, err
		}
		return &Source{Kind: ref.Kind, ID: p.ID, Rights: r, Project: p}, nil
	case domain.MemberOfGroup:
		g, r, err := s.p.Policy.GroupByRef(ctx, caller, domain.IDOrPath{ID: ref.ID, Path: ref.Path})
		if err != nil {
			return nil, err
		}
		return &Source{Kind: ref.Kind, ID: g.ID, Rights: r, Group: g}, nil
	}
	return nil, fmt.Errorf("members: unknown source kind %q", ref.Kind)
}

// List returns one page of the source's direct members; query matches
// username or name.
func (s *Service) List(ctx context.Context, src *Source, query string, pg domain.Page) ([]Entry, int, error) {
	ms, total, err := s.p.Members.List(ctx, src.Kind, src.ID, query, pg)
	if err != nil {
		return nil, 0, fmt.Errorf("list members: %w", err)
	}
	entries, err := s.withUsers(ctx, ms)
	if err != nil {
		return nil, 0, err
	}
	return entries, total, nil
}

// All returns one page of the inherited view: the source's direct members
// and the members of every group above it (a project's group and its
// ancestors; a group's ancestors), each user once with their highest active
// level, ordered by user ID.
func (s *Service) All(ctx context.Context, src *Source, query string, pg domain.Page) ([]Entry, int, error) {
	type key struct {
		kind domain.MemberSource
		id   int64
	}
	sources := []key{{src.Kind, src.ID}}
	var groupID int64
	switch src.Kind {
	case domain.MemberOfProject:
		ns, err := s.p.Namespaces.Get(ctx, src.Project.NamespaceID)
		if err != nil {
			return nil, 0, fmt.Errorf("project namespace: %w", err)
		}
		if ns.Kind == domain.NamespaceGroup {
			groupID = ns.ID
			sources = append(sources, key{domain.MemberOfGroup, ns.ID})
		}
	case domain.MemberOfGroup:
		groupID = src.ID
	}
	if groupID != 0 {
		anc, err := s.p.Namespaces.AncestorIDs(ctx, []int64{groupID})
		if err != nil {
			return nil, 0, fmt.Errorf("group ancestors: %w", err)
		}
		for _, id := range anc {
			sources = append(sources, key{domain.MemberOfGroup, id})
		}
	}
	now := s.now()
	best := map[int64]domain.Member{}
	for _, k := range sources {
		ms, _, err := s.p.Members.List(ctx, k.kind, k.id, query, domain.Page{})
		if err != nil {
			return nil, 0, fmt.Errorf("list members: %w", err)
		}
		for _, m := range ms {
			if !m.Active(now) {
				continue
			}
			if cur, ok := best[m.UserID]; !ok || m.AccessLevel > cur.AccessLevel {
				best[m.UserID] = m
			}
		}
	}
	ids := make([]int64, 0, len(best))
	for id := range best {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	total := len(ids)
	if pg.PerPage > 0 {
		from := min(pg.Offset(), total)
		ids = ids[from:min(from+pg.PerPage, total)]
	}
	page := make([]domain.Member, len(ids))
	for i, id := range ids {
		page[i] = best[id]
	}
	entries, err := s.withUsers(ctx, page)
	if err != nil {
		return nil, 0, err
	}
	return entries, total, nil
}

// Get returns one direct membership; 404 "Member Not Found" when absent.
func (s *Service) Get(ctx context.Context, src *Source, userID int64) (*Entry, error) {
	m, err := s.member(ctx, src, userID)
	if err != nil {
		return nil, err
	}
	return s.entry(ctx, m)
}

// Add makes a user a member. Only those who may manage the source may;
// the level must be one the source allows; the user must exist; an
// existing membership is a 409.
func (s *Service) Add(ctx context.Context, caller *domain.Caller, src *Source, in AddInput) (*Entry, error) {
	if !src.CanManage() {
		return nil, core.Forbidden("")
	}
	if err := s.validate(src.Kind, in.Level, in.ExpiresAt, true); err != nil {
		return nil, err
	}
	if _, err := s.p.Users.Get(ctx, in.UserID); err != nil {
		if errors.Is(err, core.ErrNotFound) {
			return nil, core.NotFound("User")
		}
		return nil, fmt.Errorf("get user: %w", err)
	}
	m := &domain.Member{
		Source:      src.Kind,
		SourceID:    src.ID,
		UserID:      in.UserID,
		AccessLevel: in.Level,
		ExpiresAt:   in.ExpiresAt,
		CreatedAt:   s.now(),
		CreatedBy:   caller.UserID(),
	}
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.p.Members.Add(ctx, m); err != nil {
			if errors.Is(err, core.ErrConflict) {
				return core.Conflict("Member already exists")
			}
			return fmt.Errorf("add member: %w", err)
		}
		return s.p.Bus.Publish(ctx, domain.MemberJoined{Member: *m, ProjectID: src.projectID(), Actor: caller.UserID()})
	})
	if err != nil {
		return nil, err
	}
	return s.entry(ctx, m)
}

// Update changes a member's level and expiry. Only those who may manage
// the source may; the last owner of a group and the owner of a personal
// project are not changed by anyone (GitLab 9.x's member policies).
func (s *Service) Update(ctx context.Context, caller *domain.Caller, src *Source, userID int64, in UpdateInput) (*Entry, error) {
	if !src.CanManage() {
		return nil, core.Forbidden("")
	}
	var out *domain.Member
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		m, err := s.member(ctx, src, userID)
		if err != nil {
			return err
		}
		if err := s.protected(ctx, src, m); err != nil {
			return err
		}
		exp := m.ExpiresAt
		if in.ExpiresSet {
			exp = in.ExpiresAt
		}
		if err := s.validate(src.Kind, in.Level, exp, in.ExpiresSet); err != nil {
			return err
		}
		out, err = s.p.Members.Update(ctx, src.Kind, src.ID, userID, func(m *domain.Member) error {
			m.AccessLevel = in.Level
			if in.ExpiresSet {
				m.ExpiresAt = in.ExpiresAt
			}
			return nil
		})
		if errors.Is(err, core.ErrNotFound) {
			return core.NotFound("Member")
		}
		if err != nil {
			return fmt.Errorf("update member: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.entry(ctx, out)
}

// Remove ends a membership: those who may manage the source remove anyone,
// members remove themselves (leave); never the last owner of a group or the
// owner of a personal project.
func (s *Service) Remove(ctx context.Context, caller *domain.Caller, src *Source, userID int64) error {
	return s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		m, err := s.member(ctx, src, userID)
		if err != nil {
			return err
		}
		if !src.CanManage() && caller.UserID() != userID {
			return core.Forbidden("")
		}
		if err := s.protected(ctx, src, m); err != nil {
			return err
		}
		if err := s.p.Members.Remove(ctx, src.Kind, src.ID, userID); err != nil {
			if errors.Is(err, core.ErrNotFound) {
				return core.NotFound("Member")
			}
			return fmt.Errorf("remove member: %w", err)
		}
		return s.p.Bus.Publish(ctx, domain.MemberLeft{Member: *m, ProjectID: src.projectID(), Actor: caller.UserID()})
	})
}

// member loads one direct membership; 404 "Member Not Found" when absent.
func (s *Service) member(ctx context.Context, src *Source, userID int64) (*domain.Member, error) {
	m, err := s.p.Members.Get(ctx, src.Kind, src.ID, userID)
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
func (s *Service) protected(ctx context.Context, src *Source, m *domain.Member) error {
	switch src.Kind {
	case domain.MemberOfGroup:
		if m.AccessLevel != domain.Owner || !m.Active(s.now()) {
			return nil
		}
		n, err := s.p.Members.CountOwners(ctx, src.ID)
		if err != nil {
			return fmt.Errorf("count owners: %w", err)
		}
		if n <= 1 {
			return core.Forbidden("")
		}
	case domain.MemberOfProject:
		ns, err := s.p.Namespaces.Get(ctx, src.Project.NamespaceID)
		if err != nil {
			return fmt.Errorf("project namespace: %w", err)
		}
		if ns.Kind == domain.NamespaceUser && ns.OwnerID != nil && *ns.OwnerID == m.UserID {
			return core.Forbidden("")
		}
	}
	return nil
}

// validate applies GitLab 9.x's member model validations: a project member
// is guest to master, a group member guest to owner; an expiry date set
// now may not be in the past.
func (s *Service) validate(kind domain.MemberSource, level domain.AccessLevel, expires *time.Time, checkExpiry bool) error {
	fields := map[string][]string{}
	if !level.Valid() || (kind == domain.MemberOfProject && level == domain.Owner) {
		fields["access_level"] = []string{"is not included in the list"}
	}
	if checkExpiry && expires != nil && expires.Before(dateOf(s.now())) {
		fields["expires_at"] = []string{"cannot be a date in the past"}
	}
	if len(fields) > 0 {
		return core.Validation(fields)
	}
	return nil
}

// dateOf is t's UTC date at midnight, how stores keep dates.
func dateOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
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
