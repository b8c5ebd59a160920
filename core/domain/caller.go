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

// Impersonated reports whether the caller uses an impersonation token.
func (c *Caller) Impersonated() bool {
	return c != nil && c.Token != nil && c.Token.Kind == TokenImpersonation
}
