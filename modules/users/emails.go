package users

import (
	"context"
	"errors"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"go.uber.org/zap"
)

// AddEmail adds a secondary address. Addresses are unique across every
// primary and secondary address of every user: a taken one is a 400 field map.
func (s *Service) AddEmail(ctx context.Context, userID int64, email string) (*domain.Email, error) {
	if _, err := s.p.Users.Get(ctx, userID); err != nil {
		return nil, core.StoreError(err, "User", "")
	}
	email = NormalizeEmail(email)
	if msgs := emailErrors(email); msgs != nil {
		return nil, core.Validation(map[string][]string{"email": msgs})
	}
	e := &domain.Email{UserID: userID, Email: email, CreatedAt: s.now()}
	if err := s.p.Emails.Create(ctx, e); err != nil {
		if errors.Is(err, core.ErrConflict) {
			return nil, core.Validation(map[string][]string{"email": {"has already been taken"}})
		}
		return nil, core.StoreError(err, "User", "")
	}
	s.log.Info("email added", zap.Int64("user_id", userID), zap.Int64("email_id", e.ID))
	return e, nil
}

// Emails lists a user's secondary addresses; an unknown user is 404.
func (s *Service) Emails(ctx context.Context, userID int64, p domain.Page) ([]domain.Email, int, error) {
	if _, err := s.p.Users.Get(ctx, userID); err != nil {
		return nil, 0, core.StoreError(err, "User", "")
	}
	return s.p.Emails.ListByUser(ctx, userID, p)
}

// UserEmail returns the user's own secondary address; another's is 404.
func (s *Service) UserEmail(ctx context.Context, userID, id int64) (*domain.Email, error) {
	e, err := s.p.Emails.Get(ctx, id)
	if err != nil {
		return nil, core.StoreError(err, "Email", "")
	}
	if e.UserID != userID {
		return nil, core.NotFound("Email")
	}
	return e, nil
}

// DeleteEmail removes the user's secondary address and returns it; 404
// "User Not Found" for an unknown user, 404 "Email Not Found" when the
// address is absent or not theirs.
func (s *Service) DeleteEmail(ctx context.Context, userID, id int64) (*domain.Email, error) {
	if _, err := s.User(ctx, userID); err != nil {
		return nil, err
	}
	e, err := s.UserEmail(ctx, userID, id)
	if err != nil {
		return nil, err
	}
	if err := s.p.Emails.Delete(ctx, userID, id); err != nil {
		return nil, core.StoreError(err, "Email", "")
	}
	s.log.Info("email deleted", zap.Int64("user_id", userID), zap.Int64("email_id", id))
	return e, nil
}
