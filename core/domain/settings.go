package domain

import "time"

// Settings are the instance's application settings (GitLab's
// ApplicationSetting), one set per deployment. Hearth honours the
// visibility defaults and restrictions, the default projects limit,
// password sign-in and the default branch protection; the rest are kept
// for clients that read and write them.
type Settings struct {
	ID                                int64
	DefaultProjectsLimit              int
	SignupEnabled                     bool
	SigninEnabled                     bool
	GravatarEnabled                   bool
	SignInText                        *string
	AfterSignUpText                   *string
	HomePageURL                       *string
	DefaultBranchProtection           int
	RestrictedVisibilityLevels        []Visibility
	MaxAttachmentSize                 int
	SessionExpireDelay                int
	DefaultProjectVisibility          Visibility
	DefaultSnippetVisibility          Visibility
	DefaultGroupVisibility            Visibility
	DomainWhitelist                   []string
	DomainBlacklistEnabled            bool
	DomainBlacklist                   []string
	UserOAuthApplications             bool
	AfterSignOutPath                  *string
	ContainerRegistryTokenExpireDelay int
	RepositoryStorages                []string
	KodingEnabled                     bool
	KodingURL                         *string
	PlantumlEnabled                   bool
	PlantumlURL                       *string
	TerminalMaxSessionTime            int
	PollingIntervalMultiplier         float64
	RSAKeyRestriction                 int
	DSAKeyRestriction                 int
	ECDSAKeyRestriction               int
	ED25519KeyRestriction             int
	CreatedAt                         time.Time
	UpdatedAt                         time.Time
}

// Default branch protection levels (GitLab's Gitlab::Access).
const (
	BranchProtectionNone       = 0 // developers may push and force-push
	BranchProtectionDevCanPush = 1 // developers may push, not merge
	BranchProtectionFull       = 2 // only masters may push and merge
)

// DefaultSettings are GitLab 9.x's defaults for a new installation.
func DefaultSettings() Settings {
	return Settings{
		ID:                                1,
		DefaultProjectsLimit:              100000,
		SignupEnabled:                     true,
		SigninEnabled:                     true,
		GravatarEnabled:                   true,
		DefaultBranchProtection:           BranchProtectionFull,
		RestrictedVisibilityLevels:        []Visibility{},
		MaxAttachmentSize:                 10,
		SessionExpireDelay:                10080,
		DefaultProjectVisibility:          Private,
		DefaultSnippetVisibility:          Private,
		DefaultGroupVisibility:            Private,
		DomainWhitelist:                   []string{},
		DomainBlacklist:                   []string{},
		UserOAuthApplications:             true,
		ContainerRegistryTokenExpireDelay: 5,
		RepositoryStorages:                []string{"default"},
		PollingIntervalMultiplier:         1,
	}
}

// Restricted reports whether non-administrators may not use visibility v.
func (s Settings) Restricted(v Visibility) bool {
	for _, r := range s.RestrictedVisibilityLevels {
		if r == v {
			return true
		}
	}
	return false
}

// HighestAllowedVisibility is GitLab's VisibilityLevel.highest_allowed_level:
// the most open level the settings do not restrict, else private.
func (s Settings) HighestAllowedVisibility() Visibility {
	for _, v := range []Visibility{Public, Internal} {
		if !s.Restricted(v) {
			return v
		}
	}
	return Private
}

// VisibilityOfLevel is the visibility of GitLab's level number, false for
// another number.
func VisibilityOfLevel(level int) (Visibility, bool) {
	switch level {
	case 0:
		return Private, true
	case 10:
		return Internal, true
	case 20:
		return Public, true
	}
	return "", false
}
