package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
)

// System events: GitLab 9.x's SystemHooksService sends every system hook
// the instance's project, member, user, key and group events. Each is
// queued in the outbox inside the transaction of the change, so a
// committed change always reaches the hooks and a rolled-back one never
// does.

// onSystem queues what build makes of each E for every system hook, in
// the publisher's transaction. build runs only when there are hooks, and
// may make no payload (a change that is no system event, such as an edit
// that keeps the path).
func onSystem[E domain.BusEvent](s *Service, build func(context.Context, E) ([]any, error)) {
	var zero E
	s.p.Bus.SubscribeTx(zero.EventName(), func(ctx context.Context, ev domain.BusEvent) error {
		e, ok := ev.(E)
		if !ok {
			return fmt.Errorf("system hooks: %s event of type %T", ev.EventName(), ev)
		}
		return s.queueSystem(ctx, func(ctx context.Context) ([]any, error) { return build(ctx, e) })
	})
}

// subscribeSystem registers the system events.
func (s *Service) subscribeSystem() {
	onSystem(s, func(ctx context.Context, e domain.ProjectCreated) ([]any, error) {
		return s.projectEvent(ctx, apijson.SystemProjectCreate, e.Project, nil)
	})
	onSystem(s, func(ctx context.Context, e domain.ProjectDestroyed) ([]any, error) {
		return s.projectEvent(ctx, apijson.SystemProjectDestroy, e.Project, nil)
	})
	// 9.x sends project_rename when the path changes (Project#rename_repo);
	// other edits send nothing.
	onSystem(s, func(ctx context.Context, e domain.ProjectUpdated) ([]any, error) {
		if e.Before.ID == 0 || e.Before.Path == e.Project.Path {
			return nil, nil
		}
		return s.projectEvent(ctx, apijson.SystemProjectRename, e.Project, &e.Before)
	})
	onSystem(s, func(ctx context.Context, e domain.ProjectTransferred) ([]any, error) {
		return s.projectEvent(ctx, apijson.SystemProjectTransfer, e.Project, &e.Before)
	})
	onSystem(s, func(ctx context.Context, e domain.MemberJoined) ([]any, error) {
		return s.memberEvent(ctx, e.Member, e.ProjectID, true)
	})
	onSystem(s, func(ctx context.Context, e domain.MemberLeft) ([]any, error) {
		return s.memberEvent(ctx, e.Member, e.ProjectID, false)
	})
	onSystem(s, func(_ context.Context, e domain.UserCreated) ([]any, error) {
		return []any{apijson.UserSystemPayload(apijson.SystemUserCreate, e.User)}, nil
	})
	onSystem(s, func(_ context.Context, e domain.UserDeleted) ([]any, error) {
		return []any{apijson.UserSystemPayload(apijson.SystemUserDestroy, e.User)}, nil
	})
	onSystem(s, func(ctx context.Context, e domain.KeyAdded) ([]any, error) {
		return s.keyEvent(ctx, apijson.SystemKeyCreate, e.Key)
	})
	onSystem(s, func(ctx context.Context, e domain.KeyRemoved) ([]any, error) {
		return s.keyEvent(ctx, apijson.SystemKeyDestroy, e.Key)
	})
	// Creating a group makes its creator an owner, which 9.x reports too
	// (Groups::CreateService's add_owner is a GroupMember's after_create).
	onSystem(s, func(ctx context.Context, e domain.GroupCreated) ([]any, error) {
		out := []any{apijson.GroupSystemPayload(apijson.SystemGroupCreate, e.Group)}
		u, err := s.sysUser(ctx, e.Owner.UserID)
		if err != nil || u == nil {
			return out, err
		}
		return append(out, apijson.GroupMemberSystemPayload(apijson.SystemUserAddToGroup, e.Owner, *u, e.Group)), nil
	})
	onSystem(s, func(_ context.Context, e domain.GroupDestroyed) ([]any, error) {
		return []any{apijson.GroupSystemPayload(apijson.SystemGroupDestroy, e.Group)}, nil
	})
}

// queueSystem queues the payloads build makes for every system hook and
// wakes the workers once the transaction commits. With no system hook it
// reads nothing more.
func (s *Service) queueSystem(ctx context.Context, build func(context.Context) ([]any, error)) error {
	ids, err := s.p.Router.HooksFor(ctx, 0, domain.HookSystem)
	if err != nil {
		return fmt.Errorf("system hooks: route: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	payloads, err := build(ctx)
	if err != nil {
		return fmt.Errorf("system hooks: build payload: %w", err)
	}
	if len(payloads) == 0 {
		return nil
	}
	queued := false
	for _, p := range payloads {
		body, err := json.Marshal(p)
		if err != nil {
			return fmt.Errorf("system hooks: encode payload: %w", err)
		}
		// Hooks deleted since they were routed are skipped.
		n, err := s.p.Deliveries.EnqueueFor(ctx, ids, domain.HookDelivery{Event: domain.HookEventSystem,
			Payload: string(body), MaxAttempts: s.p.Config.Webhooks.MaxAttempts})
		if err != nil {
			return fmt.Errorf("system hooks: enqueue for %d hooks: %w", len(ids), err)
		}
		queued = queued || n > 0
	}
	if queued {
		s.p.Tx.AfterCommit(ctx, func(context.Context) { s.nudge() })
	}
	return nil
}

// projectEvent is a project_* payload; before, for a rename or a
// transfer, is the project as it was. A project whose namespace is gone
// sends nothing.
func (s *Service) projectEvent(ctx context.Context, event string, p domain.Project, before *domain.Project) ([]any, error) {
	in, ok, err := s.systemProject(ctx, p)
	if err != nil || !ok {
		return nil, err
	}
	old := ""
	if before != nil {
		ns, err := s.sysNamespace(ctx, before.NamespaceID)
		if err != nil {
			return nil, err
		}
		if ns != nil {
			old = ns.FullPath + "/" + before.Path
		}
	}
	return []any{apijson.ProjectSystemPayload(event, in, old)}, nil
}

// systemProject resolves a project's path and owner as SystemHooksService
// shows them: a personal project's owner is its user, a group's project's
// is the group (with no email).
func (s *Service) systemProject(ctx context.Context, p domain.Project) (apijson.SystemProjectInput, bool, error) {
	in := apijson.SystemProjectInput{Project: p}
	ns, err := s.sysNamespace(ctx, p.NamespaceID)
	if err != nil || ns == nil {
		return in, false, err
	}
	in.FullPath = ns.FullPath + "/" + p.Path
	switch {
	case ns.Kind == domain.NamespaceGroup:
		in.OwnerName = ns.Name
	case ns.OwnerID != nil:
		u, err := s.sysUser(ctx, *ns.OwnerID)
		if err != nil {
			return in, false, err
		}
		if u != nil {
			in.OwnerName, in.OwnerEmail = u.Name, u.Email
		}
	}
	return in, true, nil
}

// memberEvent is user_add_to_team/user_remove_from_team for a project's
// member (projectID set), user_add_to_group/user_remove_from_group for a
// group's. A member whose user or source is gone sends nothing.
func (s *Service) memberEvent(ctx context.Context, m domain.Member, projectID *int64, joined bool) ([]any, error) {
	u, err := s.sysUser(ctx, m.UserID)
	if err != nil || u == nil {
		return nil, err
	}
	if projectID != nil {
		p, err := s.p.Projects.Get(ctx, *projectID)
		if errors.Is(err, core.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read project: %w", err)
		}
		in, ok, err := s.systemProject(ctx, *p)
		if err != nil || !ok {
			return nil, err
		}
		event := apijson.SystemUserRemoveFromTeam
		if joined {
			event = apijson.SystemUserAddToTeam
		}
		return []any{apijson.TeamMemberSystemPayload(event, m, *u, in)}, nil
	}
	g, err := s.sysNamespace(ctx, m.SourceID)
	if err != nil || g == nil {
		return nil, err
	}
	event := apijson.SystemUserRemoveFromGroup
	if joined {
		event = apijson.SystemUserAddToGroup
	}
	return []any{apijson.GroupMemberSystemPayload(event, m, *u, *g)}, nil
}

// keyEvent is key_create/key_destroy, with the key's owner's username.
func (s *Service) keyEvent(ctx context.Context, event string, k domain.SSHKey) ([]any, error) {
	u, err := s.sysUser(ctx, k.UserID)
	if err != nil {
		return nil, err
	}
	username := ""
	if u != nil {
		username = u.Username
	}
	return []any{apijson.KeySystemPayload(event, k, username)}, nil
}

// sysUser reads a user; nil when it is gone.
func (s *Service) sysUser(ctx context.Context, id int64) (*domain.User, error) {
	u, err := s.p.Users.Get(ctx, id)
	if errors.Is(err, core.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read user %d: %w", id, err)
	}
	return u, nil
}

// sysNamespace reads a namespace; nil when it is gone.
func (s *Service) sysNamespace(ctx context.Context, id int64) (*domain.Namespace, error) {
	ns, err := s.p.Namespaces.Get(ctx, id)
	if errors.Is(err, core.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read namespace %d: %w", id, err)
	}
	return ns, nil
}
