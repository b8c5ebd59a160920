package users

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
	"go.uber.org/zap"
)

// CreateUserInput is a new account. Pointer fields are optional.
type CreateUserInput struct {
	Username string
	Email    string
	// Name defaults to the username for system callers (the CLI).
	Name     string
	Password string
	// ResetPassword sets a random password nobody knows; it wins over Password.
	ResetPassword bool
	// Confirm (default true) marks the email confirmed.
	Confirm *bool
	Profile
}

// CreateUser creates an account. actor nil is the system (CLI, bootstrap);
// otherwise it must be an administrator. domain.UserCreated is published
// inside the transaction, so subscribers record it atomically.
func (s *Service) CreateUser(ctx context.Context, actor *domain.Caller, in CreateUserInput) (*domain.User, error) {
	if err := requireAdmin(actor); err != nil {
		return nil, err
	}
	in.Username = strings.TrimSpace(in.Username)
	in.Email = NormalizeEmail(in.Email)
	if strings.TrimSpace(in.Name) == "" && actor == nil {
		in.Name = in.Username
	}
	errs := core.FieldErrors{}
	for _, m := range usernameErrors(in.Username) {
		errs.Add("username", m)
	}
	for _, m := range emailErrors(in.Email) {
		errs.Add("email", m)
	}
	for _, m := range nameErrors(in.Name) {
		errs.Add("name", m)
	}
	password := in.Password
	if in.ResetPassword {
		secret, err := s.p.TokenGen.NewToken("")
		if err != nil {
			return nil, fmt.Errorf("generate password: %w", err)
		}
		password = secret
	} else {
		for _, m := range passwordErrors(password) {
			errs.Add("password", m)
		}
	}
	in.Profile.check(errs)
	if (deref(in.ExternUID, "") == "") != (deref(in.Provider, "") == "") {
		errs.Add("identities", "provide both extern_uid and provider, or neither")
	}
	if len(errs) > 0 {
		return nil, core.Validation(errs)
	}
	// GitLab reports a taken email before a taken username.
	if _, err := s.p.Users.GetByEmail(ctx, in.Email); err == nil {
		return nil, core.Conflict("Email has already been taken")
	} else if !errors.Is(err, core.ErrNotFound) {
		return nil, err
	}
	hash, err := s.p.Hasher.Hash(password)
	if err != nil {
		return nil, fmt.Errorf("hash password: %w", err)
	}
	app, err := ports.CurrentSettings(ctx, s.p.Settings)
	if err != nil {
		return nil, fmt.Errorf("application settings: %w", err)
	}
	now := s.now()
	u := &domain.User{
		Username:       in.Username,
		Name:           strings.TrimSpace(in.Name),
		Email:          in.Email,
		PasswordHash:   hash,
		State:          domain.UserActive,
		ProjectsLimit:  app.DefaultProjectsLimit,
		CanCreateGroup: true,
		ColorSchemeID:  defaultColorScheme,
		CreatedAt:      now,
		UpdatedAt:      now,
	}
	in.Profile.applyTo(u)
	if deref(in.Confirm, true) {
		u.ConfirmedAt = &now
	}
	if in.ResetPassword {
		// Nobody knows the random password; it must be replaced.
		u.PasswordExpiresAt = &now
	}
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.p.Users.Create(ctx, u); err != nil {
			return err
		}
		ev := *u
		ev.PasswordHash = ""
		return s.p.Bus.Publish(ctx, domain.UserCreated{User: ev, Actor: actor.UserID()})
	})
	if err != nil {
		return nil, userWriteErr(err)
	}
	s.log.Info("user created", zap.Int64("user_id", u.ID), zap.String("username", u.Username),
		zap.Bool("admin", u.Admin), zap.Int64("actor_id", actor.UserID()))
	return u, nil
}

// UpdateUserInput changes an account; nil fields stay as they are.
type UpdateUserInput struct {
	Email    *string
	Username *string
	Name     *string
	Password *string
	Profile
}

// UpdateUser changes an account (administrators only). A new password
// expires at once, as GitLab marks it: the owner should choose a new one.
func (s *Service) UpdateUser(ctx context.Context, actor *domain.Caller, id int64, in UpdateUserInput) (*domain.User, error) {
	if err := requireAdmin(actor); err != nil {
		return nil, err
	}
	if _, err := s.p.Users.Get(ctx, id); err != nil {
		return nil, core.StoreError(err, "User", "")
	}
	errs := core.FieldErrors{}
	if in.Username != nil {
		v := strings.TrimSpace(*in.Username)
		in.Username = &v
		for _, m := range usernameErrors(v) {
			errs.Add("username", m)
		}
	}
	if in.Email != nil {
		v := NormalizeEmail(*in.Email)
		in.Email = &v
		for _, m := range emailErrors(v) {
			errs.Add("email", m)
		}
	}
	if in.Name != nil {
		for _, m := range nameErrors(*in.Name) {
			errs.Add("name", m)
		}
	}
	if in.Password != nil {
		for _, m := range passwordErrors(*in.Password) {
			errs.Add("password", m)
		}
	}
	in.Profile.check(errs)
	if (in.ExternUID == nil) != (in.Provider == nil) || (in.ExternUID != nil && (*in.ExternUID == "") != (*in.Provider == "")) {
		errs.Add("identities", "provide both extern_uid and provider, or neither")
	}
	if len(errs) > 0 {
		return nil, core.Validation(errs)
	}
	if in.Email != nil {
		if other, err := s.p.Users.GetByEmail(ctx, *in.Email); err == nil && other.ID != id {
			return nil, core.Conflict("Email has already been taken")
		} else if err != nil && !errors.Is(err, core.ErrNotFound) {
			return nil, err
		}
	}
	if in.Username != nil {
		if other, err := s.p.Users.GetByUsername(ctx, *in.Username); err == nil && other.ID != id {
			return nil, core.Conflict("Username has already been taken")
		} else if err != nil && !errors.Is(err, core.ErrNotFound) {
			return nil, err
		}
	}
	var hash string
	if in.Password != nil {
		h, err := s.p.Hasher.Hash(*in.Password)
		if err != nil {
			return nil, fmt.Errorf("hash password: %w", err)
		}
		hash = h
	}
	now := s.now()
	var before domain.User
	var u *domain.User
	// The update and the UserUpdated subscribers (the personal namespace
	// follows a new username) commit or fail together.
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		var err error
		u, err = s.p.Users.Update(ctx, id, func(u *domain.User) error {
			before = *u
			return applyUpdate(u, in, hash, now)
		})
		if err != nil {
			return err
		}
		return s.p.Bus.Publish(ctx, domain.UserUpdated{Before: before, After: *u, Actor: actor.UserID()})
	})
	if err != nil {
		return nil, userWriteErr(err)
	}
	s.log.Info("user updated", zap.Int64("user_id", id), zap.Bool("password_changed", hash != ""),
		zap.Int64("actor_id", actor.UserID()))
	return u, nil
}

// applyUpdate copies the given fields of in onto u.
func applyUpdate(u *domain.User, in UpdateUserInput, hash string, now time.Time) error {
	set(&u.Email, in.Email)
	set(&u.Username, in.Username)
	if in.Name != nil {
		u.Name = strings.TrimSpace(*in.Name)
	}
	in.Profile.applyTo(u)
	if hash != "" {
		u.PasswordHash = hash
		u.PasswordExpiresAt = &now
	}
	u.UpdatedAt = now
	return nil
}

// check adds the profile's problems to errs.
func (p Profile) check(errs core.FieldErrors) {
	if p.Bio != nil && len([]rune(*p.Bio)) > maxBioLength {
		errs.Add("bio", fmt.Sprintf("is too long (maximum is %d characters)", maxBioLength))
	}
	if p.ProjectsLimit != nil && (*p.ProjectsLimit < 0 || *p.ProjectsLimit > maxProjectsLimit) {
		errs.Add("projects_limit", "must be greater than or equal to 0")
	}
}

// applyTo copies the given attributes onto u.
func (p Profile) applyTo(u *domain.User) {
	for _, f := range []struct{ dst, v *string }{
		{&u.Skype, p.Skype}, {&u.Linkedin, p.Linkedin}, {&u.Twitter, p.Twitter}, {&u.WebsiteURL, p.WebsiteURL},
		{&u.Organization, p.Organization}, {&u.Bio, p.Bio}, {&u.Location, p.Location},
		{&u.ExternUID, p.ExternUID}, {&u.Provider, p.Provider},
	} {
		set(f.dst, f.v)
	}
	set(&u.ProjectsLimit, p.ProjectsLimit)
	set(&u.Admin, p.Admin)
	set(&u.CanCreateGroup, p.CanCreateGroup)
	set(&u.External, p.External)
}

// set copies v onto dst when given.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// DeleteUser removes an account with its keys, emails and tokens
// (administrators only). It returns nil, nil when there was no such user.
// An administrator may not delete the account they act as: it is the one
// mistake an API client cannot undo (the last administrator locks everyone out).
func (s *Service) DeleteUser(ctx context.Context, actor *domain.Caller, id int64) (*domain.User, error) {
	if err := requireAdmin(actor); err != nil {
		return nil, err
	}
	if actor != nil && actor.UserID() == id {
		return nil, core.Forbidden("An administrator cannot delete their own account")
	}
	u, err := s.p.Users.Get(ctx, id)
	if errors.Is(err, core.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// UserDeleted subscribers remove what only this user owned, in the
	// same transaction.
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.p.Bus.Publish(ctx, domain.UserDeleted{User: *u, Actor: actor.UserID()}); err != nil {
			return err
		}
		return s.p.Users.Delete(ctx, id)
	})
	if err != nil {
		if errors.Is(err, core.ErrNotFound) {
			return nil, nil
		}
		return nil, err
	}
	s.log.Info("user deleted", zap.Int64("user_id", id), zap.Int64("actor_id", actor.UserID()))
	return u, nil
}

// User returns one account.
func (s *Service) User(ctx context.Context, id int64) (*domain.User, error) {
	u, err := s.p.Users.Get(ctx, id)
	return u, core.StoreError(err, "User", "")
}

// Users lists accounts.
func (s *Service) Users(ctx context.Context, f domain.UserFilter) ([]domain.User, int, error) {
	return s.p.Users.List(ctx, f)
}

// UserByLogin finds a user by username, or by primary email when login
// holds an '@' (usernames never do).
func (s *Service) UserByLogin(ctx context.Context, login string) (*domain.User, error) {
	login = strings.TrimSpace(login)
	if login == "" {
		return nil, core.NotFound("User")
	}
	var u *domain.User
	var err error
	if strings.Contains(login, "@") {
		u, err = s.p.Users.GetByEmail(ctx, login)
	} else {
		u, err = s.p.Users.GetByUsername(ctx, login)
	}
	return u, core.StoreError(err, "User", "")
}

// UserByRef resolves a user by numeric ID or, otherwise, by username.
func (s *Service) UserByRef(ctx context.Context, ref string) (*domain.User, error) {
	ref = strings.TrimSpace(ref)
	if isDigits(ref) {
		var id int64
		if _, err := fmt.Sscan(ref, &id); err == nil && id > 0 {
			return s.User(ctx, id)
		}
		return nil, core.NotFound("User")
	}
	if ref == "" {
		return nil, core.NotFound("User")
	}
	u, err := s.p.Users.GetByUsername(ctx, ref)
	return u, core.StoreError(err, "User", "")
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// SetBlocked blocks or unblocks an account (administrators only). A block
// set by directory synchronization cannot be changed here (403), and an
// administrator may not block the account they act as. Repeating a block or
// an unblock succeeds without change. Tokens and passwords of a blocked user
// stop working at once: authentication reads the state on every request.
func (s *Service) SetBlocked(ctx context.Context, actor *domain.Caller, id int64, blocked bool) (*domain.User, error) {
	if err := requireAdmin(actor); err != nil {
		return nil, err
	}
	var out *domain.User
	err := s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		changed := false
		u, err := s.p.Users.Update(ctx, id, func(u *domain.User) error {
			if u.State == domain.UserLDAPBlocked {
				if blocked {
					return core.Forbidden("LDAP blocked users cannot be modified by the API")
				}
				return core.Forbidden("LDAP blocked users cannot be unblocked by the API")
			}
			if blocked && actor != nil && actor.UserID() == u.ID {
				return core.Forbidden("The API initiating user cannot be blocked by the API")
			}
			want := domain.UserActive
			if blocked {
				want = domain.UserBlocked
			}
			changed = u.State != want
			u.State = want
			return nil
		})
		if err != nil {
			return err
		}
		out = u
		if !changed {
			return nil
		}
		ev := *u
		ev.PasswordHash = ""
		return s.p.Bus.Publish(ctx, domain.UserStateChanged{User: ev, Actor: actor.UserID()})
	})
	if err != nil {
		return nil, core.StoreError(err, "User", "")
	}
	s.log.Info("user state set", zap.Int64("user_id", id), zap.String("state", string(out.State)),
		zap.Int64("actor_id", actor.UserID()))
	return out, nil
}

// Activities lists users active on or after from (default six months ago),
// oldest activity first (administrators only).
func (s *Service) Activities(ctx context.Context, actor *domain.Caller, from *time.Time, p domain.Page) ([]domain.User, int, error) {
	if err := requireAdmin(actor); err != nil {
		return nil, 0, err
	}
	f := domain.DateOf(s.now()).AddDate(0, -activityMonths, 0)
	if from != nil {
		f = domain.DateOf(*from)
	}
	return s.p.Users.ListActivity(ctx, f, p)
}
