package domain

// Caller is who makes a request. A nil *Caller is anonymous.
type Caller struct {
	User *User
	// Token is the credential used, nil for password (session) sign-ins.
	Token *Token
	// Secret is the token as presented; GET /user echoes it to
	// administrators as private_token since only digests are stored.
	Secret string
	// Sudoer is the administrator acting through sudo, if any.
	Sudoer *User
	// Job is the CI job whose token was presented (JOB-TOKEN, or git's
	// gitlab-ci-token): the caller acts as the job's user, for reads only.
	Job *Job
	// DeployKey is set, and User nil, when an SSH deploy key signed in:
	// it may fetch from (and with CanPush push to) its projects only.
	DeployKey *DeployKeyAccess
}

// IsAdmin reports whether the caller acts with administrator rights.
func (c *Caller) IsAdmin() bool { return c != nil && c.User != nil && c.User.Admin }

// UserID is the acting user's ID, 0 when anonymous.
func (c *Caller) UserID() int64 {
	if c == nil || c.User == nil {
		return 0
	}
	return c.User.ID
}

// Anonymous reports whether nobody signed in: no user, and no deploy key
// (which signs in without a user).
func (c *Caller) Anonymous() bool {
	return c.UserID() == 0 && (c == nil || c.DeployKey == nil)
}

// ActorID is who an action is recorded as: the acting user, or the user
// who added the deploy key that signed in (0 when anonymous, or when that
// user is gone).
func (c *Caller) ActorID() int64 {
	if c != nil && c.User == nil && c.DeployKey != nil {
		return c.DeployKey.Key.UserID
	}
	return c.UserID()
}

// Impersonated reports whether the caller uses an impersonation token.
func (c *Caller) Impersonated() bool {
	return c != nil && c.Token != nil && c.Token.Kind == TokenImpersonation
}
