package settings

import (
	"strconv"
	"strings"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// settingsJSON is GitLab 9.x's Entities::ApplicationSetting.
type settingsJSON struct {
	ID                                int64       `json:"id"`
	DefaultProjectsLimit              int         `json:"default_projects_limit"`
	SignupEnabled                     bool        `json:"signup_enabled"`
	SigninEnabled                     bool        `json:"signin_enabled"`
	GravatarEnabled                   bool        `json:"gravatar_enabled"`
	SignInText                        *string     `json:"sign_in_text"`
	AfterSignUpText                   *string     `json:"after_sign_up_text"`
	CreatedAt                         httpx.Time  `json:"created_at"`
	UpdatedAt                         httpx.Time  `json:"updated_at"`
	HomePageURL                       *string     `json:"home_page_url"`
	DefaultBranchProtection           int         `json:"default_branch_protection"`
	RestrictedVisibilityLevels        []string    `json:"restricted_visibility_levels"`
	MaxAttachmentSize                 int         `json:"max_attachment_size"`
	SessionExpireDelay                int         `json:"session_expire_delay"`
	DefaultProjectVisibility          string      `json:"default_project_visibility"`
	DefaultSnippetVisibility          string      `json:"default_snippet_visibility"`
	DefaultGroupVisibility            string      `json:"default_group_visibility"`
	DomainWhitelist                   []string    `json:"domain_whitelist"`
	DomainBlacklistEnabled            bool        `json:"domain_blacklist_enabled"`
	DomainBlacklist                   []string    `json:"domain_blacklist"`
	UserOAuthApplications             bool        `json:"user_oauth_applications"`
	AfterSignOutPath                  *string     `json:"after_sign_out_path"`
	ContainerRegistryTokenExpireDelay int         `json:"container_registry_token_expire_delay"`
	RepositoryStorages                []string    `json:"repository_storages"`
	KodingEnabled                     bool        `json:"koding_enabled"`
	KodingURL                         *string     `json:"koding_url"`
	PlantumlEnabled                   bool        `json:"plantuml_enabled"`
	PlantumlURL                       *string     `json:"plantuml_url"`
	TerminalMaxSessionTime            int         `json:"terminal_max_session_time"`
	PollingIntervalMultiplier         decimalJSON `json:"polling_interval_multiplier"`
	RSAKeyRestriction                 int         `json:"rsa_key_restriction"`
	DSAKeyRestriction                 int         `json:"dsa_key_restriction"`
	ECDSAKeyRestriction               int         `json:"ecdsa_key_restriction"`
	ED25519KeyRestriction             int         `json:"ed25519_key_restriction"`
}

// decimalJSON renders a decimal column as GitLab's documentation shows
// it: a number with at least one decimal (1.0).
type decimalJSON float64

func (d decimalJSON) MarshalJSON() ([]byte, error) {
	s := strconv.FormatFloat(float64(d), 'f', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return []byte(s), nil
}

func settingsOf(s *domain.Settings) settingsJSON {
	levels := make([]string, 0, len(s.RestrictedVisibilityLevels))
	for _, v := range s.RestrictedVisibilityLevels {
		levels = append(levels, string(v))
	}
	return settingsJSON{
		ID: s.ID, DefaultProjectsLimit: s.DefaultProjectsLimit, SignupEnabled: s.SignupEnabled,
		SigninEnabled: s.SigninEnabled, GravatarEnabled: s.GravatarEnabled, SignInText: s.SignInText,
		AfterSignUpText: s.AfterSignUpText, CreatedAt: httpx.Time{Time: s.CreatedAt}, UpdatedAt: httpx.Time{Time: s.UpdatedAt},
		HomePageURL: s.HomePageURL, DefaultBranchProtection: s.DefaultBranchProtection,
		RestrictedVisibilityLevels: levels, MaxAttachmentSize: s.MaxAttachmentSize,
		SessionExpireDelay: s.SessionExpireDelay, DefaultProjectVisibility: string(s.DefaultProjectVisibility),
		DefaultSnippetVisibility: string(s.DefaultSnippetVisibility), DefaultGroupVisibility: string(s.DefaultGroupVisibility),
		DomainWhitelist: s.DomainWhitelist, DomainBlacklistEnabled: s.DomainBlacklistEnabled,
		DomainBlacklist: s.DomainBlacklist, UserOAuthApplications: s.UserOAuthApplications,
		AfterSignOutPath: s.AfterSignOutPath, ContainerRegistryTokenExpireDelay: s.ContainerRegistryTokenExpireDelay,
		RepositoryStorages: s.RepositoryStorages, KodingEnabled: s.KodingEnabled, KodingURL: s.KodingURL,
		PlantumlEnabled: s.PlantumlEnabled, PlantumlURL: s.PlantumlURL, TerminalMaxSessionTime: s.TerminalMaxSessionTime,
		PollingIntervalMultiplier: decimalJSON(s.PollingIntervalMultiplier), RSAKeyRestriction: s.RSAKeyRestriction,
		DSAKeyRestriction: s.DSAKeyRestriction, ECDSAKeyRestriction: s.ECDSAKeyRestriction,
		ED25519KeyRestriction: s.ED25519KeyRestriction,
	}
}

// Input are PUT's parameters; nil is "not given". Visibilities are names
// or GitLab's level numbers (0, 10, 20).
type Input struct {
	DefaultProjectsLimit              *int     `param:"default_projects_limit"`
	SignupEnabled                     *bool    `param:"signup_enabled"`
	SigninEnabled                     *bool    `param:"signin_enabled"`
	PasswordAuthenticationEnabled     *bool    `param:"password_authentication_enabled"`
	GravatarEnabled                   *bool    `param:"gravatar_enabled"`
	SignInText                        *string  `param:"sign_in_text"`
	AfterSignUpText                   *string  `param:"after_sign_up_text"`
	HomePageURL                       *string  `param:"home_page_url"`
	DefaultBranchProtection           *int     `param:"default_branch_protection"`
	RestrictedVisibilityLevels        []string `param:"restricted_visibility_levels"`
	MaxAttachmentSize                 *int     `param:"max_attachment_size"`
	SessionExpireDelay                *int     `param:"session_expire_delay"`
	DefaultProjectVisibility          *string  `param:"default_project_visibility"`
	DefaultSnippetVisibility          *string  `param:"default_snippet_visibility"`
	DefaultGroupVisibility            *string  `param:"default_group_visibility"`
	DomainWhitelist                   []string `param:"domain_whitelist"`
	DomainBlacklistEnabled            *bool    `param:"domain_blacklist_enabled"`
	DomainBlacklist                   []string `param:"domain_blacklist"`
	UserOAuthApplications             *bool    `param:"user_oauth_applications"`
	AfterSignOutPath                  *string  `param:"after_sign_out_path"`
	ContainerRegistryTokenExpireDelay *int     `param:"container_registry_token_expire_delay"`
	RepositoryStorages                []string `param:"repository_storages"`
	KodingEnabled                     *bool    `param:"koding_enabled"`
	KodingURL                         *string  `param:"koding_url"`
	PlantumlEnabled                   *bool    `param:"plantuml_enabled"`
	PlantumlURL                       *string  `param:"plantuml_url"`
	TerminalMaxSessionTime            *int     `param:"terminal_max_session_time"`
	PollingIntervalMultiplier         *float64 `param:"polling_interval_multiplier"`
	RSAKeyRestriction                 *int     `param:"rsa_key_restriction"`
	DSAKeyRestriction                 *int     `param:"dsa_key_restriction"`
	ECDSAKeyRestriction               *int     `param:"ecdsa_key_restriction"`
	ED25519KeyRestriction             *int     `param:"ed25519_key_restriction"`

	// Given names the parameters present; lists need it (an empty list
	// clears them).
	Given map[string]bool `param:"-"`
	// Invalid is the decoding error, returned after the access check.
	Invalid error `param:"-"`
}

// paramNames are PUT's parameters in GitLab's order.
type paramNames []string

var settingParams = paramNames{
	"default_branch_protection", "default_project_visibility", "default_snippet_visibility",
	"default_group_visibility", "restricted_visibility_levels", "domain_whitelist",
	"domain_blacklist_enabled", "domain_blacklist", "after_sign_up_text", "signin_enabled",
	"password_authentication_enabled", "sign_in_text", "home_page_url", "after_sign_out_path",
	"signup_enabled", "gravatar_enabled", "user_oauth_applications", "default_projects_limit",
	"max_attachment_size", "session_expire_delay", "container_registry_token_expire_delay",
	"repository_storages", "koding_enabled", "koding_url", "plantuml_enabled", "plantuml_url",
	"terminal_max_session_time", "polling_interval_multiplier", "rsa_key_restriction",
	"dsa_key_restriction", "ecdsa_key_restriction", "ed25519_key_restriction",
}

func (n paramNames) given(has func(string) bool) map[string]bool {
	out := map[string]bool{}
	for _, name := range n {
		if has(name) {
			out[name] = true
		}
	}
	return out
}
