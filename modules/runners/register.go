package runners

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// Registered is a new runner with its authentication token, shown once.
type Registered struct {
	Runner *domain.Runner
	Token  string
}

// Register creates a runner from a registration token: an instance
// token (configuration) makes a shared runner, a project's token a
// specific runner of that project; anything else is 403.
func (s *Service) Register(ctx context.Context, in RegisterInput) (*Registered, error) {
	if in.Token == "" {
		return nil, core.MissingParam("token")
	}
	var projectID int64
	shared := false
	if reg := s.p.Config.CI.RegistrationToken; reg != "" && secretEqual(reg, in.Token) {
		shared = true
	} else {
		id, err := s.p.Runners.ProjectOfRegistrationToken(ctx, domain.TokenDigest(in.Token))
		if errors.Is(err, core.ErrNotFound) {
			return nil, errForbidden()
		}
		if err != nil {
			return nil, fmt.Errorf("registration token: %w", err)
		}
		projectID = id
	}
	r := &domain.Runner{
		Active:      true,
		RunUntagged: true,
		IsShared:    shared,
		AccessLevel: domain.RunnerNotProtected,
		CreatedAt:   s.now(),
	}
	if err := in.apply(r); err != nil {
		return nil, err
	}
	in.Info.apply(r)
	r.IPAddress = in.IP
	token, err := s.p.TokenGen.NewToken(runnerTokenPrefix)
	if err != nil {
		return nil, fmt.Errorf("runner token: %w", err)
	}
	r.TokenDigest = domain.TokenDigest(token)
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.p.Runners.Create(ctx, r); err != nil {
			return fmt.Errorf("create runner: %w", err)
		}
		if shared {
			return nil
		}
		if err := s.p.Runners.AddProject(ctx, r.ID, projectID); err != nil {
			return fmt.Errorf("runner project: %w", err)
		}
		r.ProjectIDs = []int64{projectID}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.log.Info("runner registered")
	return &Registered{Runner: r, Token: token}, nil
}

// Verify checks a runner token (403 when unknown).
func (s *Service) Verify(ctx context.Context, token string) (*domain.Runner, error) {
	return s.runnerByToken(ctx, token)
}

// Unregister deletes the runner whose token this is.
func (s *Service) Unregister(ctx context.Context, token string) error {
	r, err := s.runnerByToken(ctx, token)
	if err != nil {
		return err
	}
	if err := s.p.Runners.Delete(ctx, r.ID); err != nil && !errors.Is(err, core.ErrNotFound) {
		return fmt.Errorf("delete runner: %w", err)
	}
	return nil
}

// contact records, at most once a minute per runner, that it asked for
// work and what it said of itself. Each node throttles in memory; the
// stored contacted_at throttles across nodes.
func (s *Service) contact(ctx context.Context, r *domain.Runner, info RunnerInfo, ip string) {
	now := s.now()
	s.mu.Lock()
	last, ok := s.contacted[r.ID]
	if ok && now.Sub(last) < contactEvery && now.After(last) {
		s.mu.Unlock()
		return
	}
	s.contacted[r.ID] = now
	s.mu.Unlock()
	if r.ContactedAt != nil && now.Sub(*r.ContactedAt) < contactEvery && now.After(*r.ContactedAt) {
		return
	}
	upd := *r
	info.apply(&upd)
	upd.IPAddress = ip
	if err := s.p.Runners.Contacted(context.WithoutCancel(ctx), r.ID, now, upd); err != nil {
		s.log.Warn("record runner contact", zapRunner(r.ID), zapErr(err))
		return
	}
	r.ContactedAt = &now
}
