package users

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
)

// EnsureRoot creates the `root` administrator when no user exists yet. An
// empty password is replaced by a generated one, returned once. Another
// node creating root at the same moment is not an error.
func (s *Service) EnsureRoot(ctx context.Context, password, email string) (created bool, generatedPassword string, err error) {
	n, err := s.p.Users.Count(ctx)
	if err != nil {
		return false, "", fmt.Errorf("count users: %w", err)
	}
	if n > 0 {
		return false, "", nil
	}
	if password == "" {
		secret, err := s.p.TokenGen.NewToken("")
		if err != nil {
			return false, "", fmt.Errorf("generate root password: %w", err)
		}
		password, generatedPassword = secret, secret
	}
	if email == "" {
		email = "admin@example.com"
	}
	admin := true
	_, err = s.CreateUser(ctx, nil, CreateUserInput{
		Username: "root", Name: "Administrator", Email: email, Password: password, Profile: Profile{Admin: &admin},
	})
	if errors.Is(err, core.ErrConflict) {
		return false, "", nil
	}
	if err != nil {
		return false, "", fmt.Errorf("create root: %w", err)
	}
	return true, generatedPassword, nil
}
