package settings

import (
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// validateParams are the API's parameter rules (Grape's): at least one
// setting, an URL with each enabled integration, a blacklist with the
// blacklist enabled, and the allowed values of the enumerations.
func (in *Input) validateParams() error {
	if len(in.Given) == 0 {
		return &core.Error{Kind: core.ErrInvalid, Param: true,
			Msg: strings.Join(settingParams, ", ") + " are missing, at least one parameter must be provided"}
	}
	var msgs []string
	requires := func(flag *bool, name string) {
		if flag != nil && *flag && !in.Given[name] {
			msgs = append(msgs, name+" is missing")
		}
	}
	requires(in.DomainBlacklistEnabled, "domain_blacklist")
	requires(in.KodingEnabled, "koding_url")
	requires(in.PlantumlEnabled, "plantuml_url")
	if p := in.DefaultBranchProtection; p != nil && (*p < domain.BranchProtectionNone || *p > domain.BranchProtectionFull) {
		msgs = append(msgs, "default_branch_protection does not have a valid value")
	}
	for _, v := range []struct {
		name string
		val  *string
	}{
		{"default_project_visibility", in.DefaultProjectVisibility},
		{"default_snippet_visibility", in.DefaultSnippetVisibility},
		{"default_group_visibility", in.DefaultGroupVisibility},
	} {
		if v.val != nil {
			if _, ok := visibilityOf(*v.val); !ok {
				msgs = append(msgs, v.name+" does not have a valid value")
			}
		}
	}
	if len(msgs) > 0 {
		return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: strings.Join(msgs, ", ")}
	}
	return nil
}

// visibilityOf reads a visibility given by name or by GitLab's level.
func visibilityOf(s string) (domain.Visibility, bool) {
	s = strings.TrimSpace(s)
	if v := domain.Visibility(s); v.Valid() {
		return v, true
	}
	if n, err := strconv.Atoi(s); err == nil {
		return domain.VisibilityOfLevel(n)
	}
	return "", false
}

// domainListSep splits a domain list given as one text, as GitLab's
// domain_whitelist_raw= does.
var domainListSep = regexp.MustCompile(`\s*[,;]\s*|\s*\n\s*|\s+`)

func domainList(in []string) []string {
	out := []string{}
	for _, s := range in {
		for _, d := range domainListSep.Split(s, -1) {
			if d = strings.TrimSpace(d); d != "" {
				out = append(out, d)
			}
		}
	}
	return out
}

// apply copies what in gives onto st. A restricted level that is no
// visibility is kept by name for validateSettings to report.
func (in *Input) apply(st *domain.Settings) error {
	setInt := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	setBool := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	setText := func(dst **string, v *string) {
		if v != nil {
			s := *v
			*dst = &s
		}
	}
	setVis := func(dst *domain.Visibility, v *string) {
		if v != nil {
			*dst, _ = visibilityOf(*v)
		}
	}
	setInt(&st.DefaultProjectsLimit, in.DefaultProjectsLimit)
	setBool(&st.SignupEnabled, in.SignupEnabled)
	// password_authentication_enabled is 10.x's name of signin_enabled.
	setBool(&st.SigninEnabled, in.PasswordAuthenticationEnabled)
	setBool(&st.SigninEnabled, in.SigninEnabled)
	setBool(&st.GravatarEnabled, in.GravatarEnabled)
	setText(&st.SignInText, in.SignInText)
	setText(&st.AfterSignUpText, in.AfterSignUpText)
	setText(&st.HomePageURL, in.HomePageURL)
	setInt(&st.DefaultBranchProtection, in.DefaultBranchProtection)
	if in.Given["restricted_visibility_levels"] {
		st.RestrictedVisibilityLevels = []domain.Visibility{}
		for _, l := range in.RestrictedVisibilityLevels {
			if strings.TrimSpace(l) == "" {
				continue
			}
			v, ok := visibilityOf(l)
			if !ok {
				v = domain.Visibility(l)
			}
			if !slices.Contains(st.RestrictedVisibilityLevels, v) {
				st.RestrictedVisibilityLevels = append(st.RestrictedVisibilityLevels, v)
			}
		}
	}
	setInt(&st.MaxAttachmentSize, in.MaxAttachmentSize)
	setInt(&st.SessionExpireDelay, in.SessionExpireDelay)
	setVis(&st.DefaultProjectVisibility, in.DefaultProjectVisibility)
	setVis(&st.DefaultSnippetVisibility, in.DefaultSnippetVisibility)
	setVis(&st.DefaultGroupVisibility, in.DefaultGroupVisibility)
	if in.Given["domain_whitelist"] {
		st.DomainWhitelist = domainList(in.DomainWhitelist)
	}
	setBool(&st.DomainBlacklistEnabled, in.DomainBlacklistEnabled)
	if in.Given["domain_blacklist"] {
		st.DomainBlacklist = domainList(in.DomainBlacklist)
	}
	setBool(&st.UserOAuthApplications, in.UserOAuthApplications)
	setText(&st.AfterSignOutPath, in.AfterSignOutPath)
	setInt(&st.ContainerRegistryTokenExpireDelay, in.ContainerRegistryTokenExpireDelay)
	if in.Given["repository_storages"] {
		st.RepositoryStorages = domainList(in.RepositoryStorages)
	}
	setBool(&st.KodingEnabled, in.KodingEnabled)
	setText(&st.KodingURL, in.KodingURL)
	setBool(&st.PlantumlEnabled, in.PlantumlEnabled)
	setText(&st.PlantumlURL, in.PlantumlURL)
	setInt(&st.TerminalMaxSessionTime, in.TerminalMaxSessionTime)
	if in.PollingIntervalMultiplier != nil {
		st.PollingIntervalMultiplier = *in.PollingIntervalMultiplier
	}
	setInt(&st.RSAKeyRestriction, in.RSAKeyRestriction)
	setInt(&st.DSAKeyRestriction, in.DSAKeyRestriction)
	setInt(&st.ECDSAKeyRestriction, in.ECDSAKeyRestriction)
	setInt(&st.ED25519KeyRestriction, in.ED25519KeyRestriction)
	return nil
}

// Allowed SSH key restrictions (GitLab 9.5's Gitlab::SSHPublicKey):
// 0 any size, -1 forbidden, else the minimum size in bits.
var keyRestrictions = map[string][]int{
	"rsa_key_restriction":     {0, 1024, 2048, 3072, 4096, -1},
	"dsa_key_restriction":     {0, 1024, 2048, 3072, -1},
	"ecdsa_key_restriction":   {0, 256, 384, 521, -1},
	"ed25519_key_restriction": {0, 256, -1},
}

// validateSettings are GitLab's ApplicationSetting validations, in its
// words.
func validateSettings(st *domain.Settings) error {
	fields := map[string][]string{}
	add := func(f, msg string) { fields[f] = append(fields[f], msg) }
	atLeast := func(f string, v, min int) {
		if v < min {
			add(f, "must be greater than or equal to "+strconv.Itoa(min))
		}
	}
	positive := func(f string, v int) {
		if v <= 0 {
			add(f, "must be greater than 0")
		}
	}
	atLeast("default_projects_limit", st.DefaultProjectsLimit, 0)
	positive("max_attachment_size", st.MaxAttachmentSize)
	atLeast("session_expire_delay", st.SessionExpireDelay, 0)
	positive("container_registry_token_expire_delay", st.ContainerRegistryTokenExpireDelay)
	atLeast("terminal_max_session_time", st.TerminalMaxSessionTime, 0)
	if st.PollingIntervalMultiplier < 0 {
		add("polling_interval_multiplier", "must be greater than or equal to 0")
	}
	url := func(f string, v *string) {
		if v != nil && strings.TrimSpace(*v) != "" && !validURL(*v) {
			add(f, "must be a valid URL")
		}
	}
	url("home_page_url", st.HomePageURL)
	url("after_sign_out_path", st.AfterSignOutPath)
	blank := func(v *string) bool { return v == nil || strings.TrimSpace(*v) == "" }
	if st.KodingEnabled && blank(st.KodingURL) {
		add("koding_url", "can't be blank")
	}
	url("koding_url", st.KodingURL)
	if st.PlantumlEnabled && blank(st.PlantumlURL) {
		add("plantuml_url", "can't be blank")
	}
	url("plantuml_url", st.PlantumlURL)
	for _, v := range st.RestrictedVisibilityLevels {
		if !v.Valid() {
			add("restricted_visibility_levels", "'"+string(v)+"' is not a valid visibility level")
		}
	}
	if len(st.RepositoryStorages) == 0 {
		add("repository_storages", "can't be blank")
	}
	var unknown []string
	for _, r := range st.RepositoryStorages {
		if r != "default" {
			unknown = append(unknown, r)
		}
	}
	if len(unknown) > 0 {
		add("repository_storages", "can't include: "+strings.Join(unknown, ", "))
	}
	for f, v := range map[string]int{
		"rsa_key_restriction": st.RSAKeyRestriction, "dsa_key_restriction": st.DSAKeyRestriction,
		"ecdsa_key_restriction": st.ECDSAKeyRestriction, "ed25519_key_restriction": st.ED25519KeyRestriction,
	} {
		if !slices.Contains(keyRestrictions[f], v) {
			add(f, "is not included in the list")
		}
	}
	if len(fields) > 0 {
		return core.Validation(fields)
	}
	return nil
}

// validURL is GitLab's UrlValidator: an absolute http or https URL.
func validURL(s string) bool {
	u, err := url.Parse(strings.TrimSpace(s))
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
