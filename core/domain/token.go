package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// TokenKind tells how a token came to be.
type TokenKind string

const (
	// TokenSession is issued by POST /session (GitLab's private token).
	TokenSession TokenKind = "session"
	// TokenPersonal is a personal access token.
	TokenPersonal TokenKind = "personal"
	// TokenImpersonation is created by an administrator for a user and is
	// hidden from that user's own lists.
	TokenImpersonation TokenKind = "impersonation"
)

// Scopes a token may carry.
const (
	ScopeAPI      = "api"
	ScopeReadUser = "read_user"
	ScopeSudo     = "sudo"
)

// Token is an API credential. Only the SHA-256 digest of its secret is kept.
type Token struct {
	ID         int64
	UserID     int64
	Name       string
	Digest     string
	Kind       TokenKind
	Scopes     []string
	Revoked    bool
	ExpiresAt  *time.Time // a date: the token works through the previous day
	CreatedAt  time.Time
	LastUsedAt *time.Time
}

// Active reports whether the token may be used at now.
func (t *Token) Active(now time.Time) bool {
	return !t.Revoked && !t.Expired(now)
}

// Expired reports whether the token's expiry date has been reached.
func (t *Token) Expired(now time.Time) bool {
	if t.ExpiresAt == nil {
		return false
	}
	return !now.Before(*t.ExpiresAt)
}

// HasScope reports whether the token grants scope.
func (t *Token) HasScope(scope string) bool {
	for _, s := range t.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

// TokenDigest is the stored form of a token secret. Tokens carry at least
// 160 random bits, so a fast hash is safe and keeps authentication cheap.
func TokenDigest(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// TokenState filters token lists.
type TokenState string

const (
	TokensAll      TokenState = "all"
	TokensActive   TokenState = "active"
	TokensInactive TokenState = "inactive"
)
