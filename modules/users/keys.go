package users

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/sshkey"
	"go.uber.org/zap"
)

// maxTitleLength is GitLab 9.x's limit on a key's title.
const maxTitleLength = 255

// AddKey adds a public key to a user. Invalid keys and taken fingerprints are
// 400s with GitLab's field map; an unknown user is 404.
func (s *Service) AddKey(ctx context.Context, userID int64, title, key string) (*domain.SSHKey, error) {
	if _, err := s.p.Users.Get(ctx, userID); err != nil {
		return nil, core.StoreError(err, "User", "")
	}
	errs := core.FieldErrors{}
	title = strings.TrimSpace(title)
	switch {
	case title == "":
		errs.Add("title", "can't be blank")
	case len([]rune(title)) > maxTitleLength:
		errs.Add("title", fmt.Sprintf("is too long (maximum is %d characters)", maxTitleLength))
	}
	parsed, keyErrs := sshkey.Check(key)
	for f, msgs := range keyErrs {
		errs.Add(f, msgs...)
	}
	if len(errs) > 0 {
		return nil, core.Validation(errs)
	}
	k := &domain.SSHKey{
		UserID:      userID,
		Title:       title,
		Key:         parsed.String(),
		Fingerprint: parsed.Fingerprint(),
		CreatedAt:   s.now(),
	}
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.p.Keys.Create(ctx, k); err != nil {
			if errors.Is(err, core.ErrConflict) {
				return core.Validation(map[string][]string{"fingerprint": {"has already been taken"}})
			}
			return core.StoreError(err, "User", "")
		}
		return s.p.Bus.Publish(ctx, domain.KeyAdded{Key: *k})
	})
	if err != nil {
		return nil, err
	}
	s.log.Info("ssh key added", zap.Int64("user_id", userID), zap.Int64("key_id", k.ID), zap.String("type", parsed.Type))
	return k, nil
}

// Keys lists a user's keys; an unknown user is 404.
func (s *Service) Keys(ctx context.Context, userID int64, p domain.Page) ([]domain.SSHKey, int, error) {
	if _, err := s.p.Users.Get(ctx, userID); err != nil {
		return nil, 0, core.StoreError(err, "User", "")
	}
	return s.p.Keys.ListByUser(ctx, userID, p)
}

// Key returns any key (administrators read every key).
func (s *Service) Key(ctx context.Context, id int64) (*domain.SSHKey, error) {
	k, err := s.p.Keys.Get(ctx, id)
	return k, core.StoreError(err, "Key", "")
}

// KeyWithUser returns any key with its user; a key whose user is gone is
// 404 "Key Not Found".
func (s *Service) KeyWithUser(ctx context.Context, id int64) (*domain.SSHKey, *domain.User, error) {
	k, err := s.Key(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	u, err := s.p.Users.Get(ctx, k.UserID)
	if err != nil {
		return nil, nil, core.StoreError(err, "Key", "")
	}
	return k, u, nil
}

// UserKey returns the user's own key; another user's key is 404.
func (s *Service) UserKey(ctx context.Context, userID, id int64) (*domain.SSHKey, error) {
	k, err := s.Key(ctx, id)
	if err != nil {
		return nil, err
	}
	if k.UserID != userID {
		return nil, core.NotFound("Key")
	}
	return k, nil
}

// DeleteKey removes the user's key and returns it; 404 "User Not Found"
// for an unknown user, 404 "Key Not Found" when the key is absent or not
// theirs.
func (s *Service) DeleteKey(ctx context.Context, userID, id int64) (*domain.SSHKey, error) {
	if _, err := s.User(ctx, userID); err != nil {
		return nil, err
	}
	k, err := s.UserKey(ctx, userID, id)
	if err != nil {
		return nil, err
	}
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.p.Keys.Delete(ctx, userID, id); err != nil {
			return core.StoreError(err, "Key", "")
		}
		return s.p.Bus.Publish(ctx, domain.KeyRemoved{Key: *k})
	})
	if err != nil {
		return nil, err
	}
	s.log.Info("ssh key deleted", zap.Int64("user_id", userID), zap.Int64("key_id", id))
	return k, nil
}
