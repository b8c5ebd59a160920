package projects

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// subscribe keeps personal namespaces in step with their users, inside the
// users module's transactions: a failure here rolls the user change back.
func (s *Service) subscribe() {
	s.p.Bus.SubscribeTx(domain.UserCreated{}.EventName(), func(ctx context.Context, ev domain.BusEvent) error {
		e, ok := ev.(domain.UserCreated)
		if !ok {
			return nil
		}
		_, err := s.personalNamespace(ctx, &e.User)
		return err
	})
	s.p.Bus.SubscribeTx(domain.UserUpdated{}.EventName(), func(ctx context.Context, ev domain.BusEvent) error {
		e, ok := ev.(domain.UserUpdated)
		if !ok {
			return nil
		}
		return s.userRenamed(ctx, &e.Before, &e.After)
	})
	s.p.Bus.SubscribeTx(domain.UserDeleted{}.EventName(), func(ctx context.Context, ev domain.BusEvent) error {
		e, ok := ev.(domain.UserDeleted)
		if !ok {
			return nil
		}
		return s.userDeleted(ctx, &e.User, e.Actor)
	})
}

// usernameTaken is how a username that collides with a group path fails
// the users module's write: its field makes it "Username has already been taken".
func usernameTaken() error {
	return &core.Error{Kind: core.ErrConflict, Msg: "Username has already been taken",
		Fields: map[string][]string{"username": {"has already been taken"}}}
}

func namespaceName(u *domain.User) string {
	if strings.TrimSpace(u.Name) != "" {
		return u.Name
	}
	return u.Username
}

// personalNamespace returns u's personal namespace, creating it (kind
// user, path and full path the username, public) when it does not exist.
func (s *Service) personalNamespace(ctx context.Context, u *domain.User) (*domain.Namespace, error) {
	ns, err := s.p.Namespaces.ForUser(ctx, u.ID)
	if err == nil {
		return ns, nil
	}
	if !errors.Is(err, core.ErrNotFound) {
		return nil, fmt.Errorf("personal namespace: %w", err)
	}
	owner := u.ID
	now := s.now()
	ns = &domain.Namespace{
		Kind:       domain.NamespaceUser,
		Name:       namespaceName(u),
		Path:       u.Username,
		OwnerID:    &owner,
		Visibility: domain.Public,
		LFSEnabled: true,
		CreatedAt:  now,
		UpdatedAt:  now,
	}
	if err := s.p.Namespaces.Create(ctx, ns); err != nil {
		if errors.Is(err, core.ErrConflict) {
			return nil, usernameTaken()
		}
		return nil, fmt.Errorf("create personal namespace: %w", err)
	}
	return ns, nil
}

// userRenamed moves the personal namespace to a new username and name.
func (s *Service) userRenamed(ctx context.Context, before, after *domain.User) error {
	ns, err := s.p.Namespaces.ForUser(ctx, after.ID)
	if errors.Is(err, core.ErrNotFound) {
		_, err = s.personalNamespace(ctx, after)
		return err
	}
	if err != nil {
		return fmt.Errorf("personal namespace: %w", err)
	}
	name := namespaceName(after)
	if ns.Path == after.Username && ns.Name == name {
		return nil
	}
	_, err = s.p.Namespaces.Update(ctx, ns.ID, func(n *domain.Namespace) error {
		n.Path = after.Username
		n.Name = name
		return nil
	})
	if errors.Is(err, core.ErrConflict) {
		return usernameTaken()
	}
	if err != nil {
		return fmt.Errorf("rename personal namespace: %w", err)
	}
	return nil
}

// userDeleted removes the personal namespace with its projects in the
// deleting transaction, and their repositories after it commits.
func (s *Service) userDeleted(ctx context.Context, u *domain.User, actor int64) error {
	ns, err := s.p.Namespaces.ForUser(ctx, u.ID)
	if errors.Is(err, core.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("personal namespace: %w", err)
	}
	projects, _, err := s.p.Projects.List(ctx, domain.ProjectFilter{
		Readable: domain.ReadScope{All: true}, NamespaceIDs: []int64{ns.ID},
		OrderBy: domain.OrderByID, Ascending: true,
	})
	if err != nil {
		return fmt.Errorf("personal projects: %w", err)
	}
	repos := make([]string, 0, len(projects))
	inside := map[int64]bool{}
	for _, p := range projects {
		inside[p.ID] = true
	}
	for i := range projects {
		p := projects[i]
		if p.ForkedFromID != nil && inside[*p.ForkedFromID] {
			p.ForkedFromID = nil // its source goes too
		}
		if err := s.deleteInTx(ctx, &p, actor); err != nil {
			return err
		}
		repos = append(repos, domain.RepoPath(p.ID))
	}
	if err := s.p.Namespaces.Delete(ctx, ns.ID); err != nil && !errors.Is(err, core.ErrNotFound) {
		return fmt.Errorf("delete personal namespace: %w", err)
	}
	s.deleteReposAfterCommit(ctx, repos)
	if len(projects) > 0 {
		s.p.Log.Info("deleting personal projects of a deleted user", zap.Int64("user_id", u.ID), zap.Int("projects", len(projects)))
	}
	return nil
}
