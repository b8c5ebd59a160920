package bunstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// settingsRow is the one row of application_settings (migration 0022).
type settingsRow struct {
	bun.BaseModel `bun:"table:application_settings,alias:aps"`

	ID        int64     `bun:"id,pk"`
	Data      string    `bun:"data"`
	CreatedAt time.Time `bun:"created_at"`
	UpdatedAt time.Time `bun:"updated_at"`
}

// settingsID is the key of the one row.
const settingsID = 1

// settingsDoc is how the settings are stored in the data column. Decoding
// a document over the defaults' doc lets settings added later read as
// their default.
type settingsDoc struct {
	DefaultProjectsLimit              int      `json:"default_projects_limit"`
	SignupEnabled                     bool     `json:"signup_enabled"`
	SigninEnabled                     bool     `json:"signin_enabled"`
	GravatarEnabled                   bool     `json:"gravatar_enabled"`
	SignInText                        *string  `json:"sign_in_text"`
	AfterSignUpText                   *string  `json:"after_sign_up_text"`
	HomePageURL                       *string  `json:"home_page_url"`
	DefaultBranchProtection           int      `json:"default_branch_protection"`
	RestrictedVisibilityLevels        []string `json:"restricted_visibility_levels"`
	MaxAttachmentSize                 int      `json:"max_attachment_size"`
	SessionExpireDelay                int      `json:"session_expire_delay"`
	DefaultProjectVisibility          string   `json:"default_project_visibility"`
	DefaultSnippetVisibility          string   `json:"default_snippet_visibility"`
	DefaultGroupVisibility            string   `json:"default_group_visibility"`
	DomainWhitelist                   []string `json:"domain_whitelist"`
	DomainBlacklistEnabled            bool     `json:"domain_blacklist_enabled"`
	DomainBlacklist                   []string `json:"domain_blacklist"`
	UserOAuthApplications             bool     `json:"user_oauth_applications"`
	AfterSignOutPath                  *string  `json:"after_sign_out_path"`
	ContainerRegistryTokenExpireDelay int      `json:"container_registry_token_expire_delay"`
	RepositoryStorages                []string `json:"repository_storages"`
	KodingEnabled                     bool     `json:"koding_enabled"`
	KodingURL                         *string  `json:"koding_url"`
	PlantumlEnabled                   bool     `json:"plantuml_enabled"`
	PlantumlURL                       *string  `json:"plantuml_url"`
	TerminalMaxSessionTime            int      `json:"terminal_max_session_time"`
	PollingIntervalMultiplier         float64  `json:"polling_interval_multiplier"`
	RSAKeyRestriction                 int      `json:"rsa_key_restriction"`
	DSAKeyRestriction                 int      `json:"dsa_key_restriction"`
	ECDSAKeyRestriction               int      `json:"ecdsa_key_restriction"`
	ED25519KeyRestriction             int      `json:"ed25519_key_restriction"`
}

func visibilityStrings(vs []domain.Visibility) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, string(v))
	}
	return out
}

func docOf(s *domain.Settings) settingsDoc {
	return settingsDoc{
		DefaultProjectsLimit: s.DefaultProjectsLimit, SignupEnabled: s.SignupEnabled, SigninEnabled: s.SigninEnabled,
		GravatarEnabled: s.GravatarEnabled, SignInText: s.SignInText, AfterSignUpText: s.AfterSignUpText,
		HomePageURL: s.HomePageURL, DefaultBranchProtection: s.DefaultBranchProtection,
		RestrictedVisibilityLevels: visibilityStrings(s.RestrictedVisibilityLevels),
		MaxAttachmentSize:          s.MaxAttachmentSize, SessionExpireDelay: s.SessionExpireDelay,
		DefaultProjectVisibility: string(s.DefaultProjectVisibility), DefaultSnippetVisibility: string(s.DefaultSnippetVisibility),
		DefaultGroupVisibility: string(s.DefaultGroupVisibility), DomainWhitelist: s.DomainWhitelist,
		DomainBlacklistEnabled: s.DomainBlacklistEnabled, DomainBlacklist: s.DomainBlacklist,
		UserOAuthApplications: s.UserOAuthApplications, AfterSignOutPath: s.AfterSignOutPath,
		ContainerRegistryTokenExpireDelay: s.ContainerRegistryTokenExpireDelay, RepositoryStorages: s.RepositoryStorages,
		KodingEnabled: s.KodingEnabled, KodingURL: s.KodingURL, PlantumlEnabled: s.PlantumlEnabled, PlantumlURL: s.PlantumlURL,
		TerminalMaxSessionTime: s.TerminalMaxSessionTime, PollingIntervalMultiplier: s.PollingIntervalMultiplier,
		RSAKeyRestriction: s.RSAKeyRestriction, DSAKeyRestriction: s.DSAKeyRestriction,
		ECDSAKeyRestriction: s.ECDSAKeyRestriction, ED25519KeyRestriction: s.ED25519KeyRestriction,
	}
}

func (d settingsDoc) domain() domain.Settings {
	rv := make([]domain.Visibility, 0, len(d.RestrictedVisibilityLevels))
	for _, v := range d.RestrictedVisibilityLevels {
		rv = append(rv, domain.Visibility(v))
	}
	orEmpty := func(l []string) []string {
		if l == nil {
			return []string{}
		}
		return l
	}
	return domain.Settings{
		DefaultProjectsLimit: d.DefaultProjectsLimit, SignupEnabled: d.SignupEnabled, SigninEnabled: d.SigninEnabled,
		GravatarEnabled: d.GravatarEnabled, SignInText: d.SignInText, AfterSignUpText: d.AfterSignUpText,
		HomePageURL: d.HomePageURL, DefaultBranchProtection: d.DefaultBranchProtection, RestrictedVisibilityLevels: rv,
		MaxAttachmentSize: d.MaxAttachmentSize, SessionExpireDelay: d.SessionExpireDelay,
		DefaultProjectVisibility: domain.Visibility(d.DefaultProjectVisibility),
		DefaultSnippetVisibility: domain.Visibility(d.DefaultSnippetVisibility),
		DefaultGroupVisibility:   domain.Visibility(d.DefaultGroupVisibility), DomainWhitelist: orEmpty(d.DomainWhitelist),
		DomainBlacklistEnabled: d.DomainBlacklistEnabled, DomainBlacklist: orEmpty(d.DomainBlacklist),
		UserOAuthApplications: d.UserOAuthApplications, AfterSignOutPath: d.AfterSignOutPath,
		ContainerRegistryTokenExpireDelay: d.ContainerRegistryTokenExpireDelay, RepositoryStorages: orEmpty(d.RepositoryStorages),
		KodingEnabled: d.KodingEnabled, KodingURL: d.KodingURL, PlantumlEnabled: d.PlantumlEnabled, PlantumlURL: d.PlantumlURL,
		TerminalMaxSessionTime: d.TerminalMaxSessionTime, PollingIntervalMultiplier: d.PollingIntervalMultiplier,
		RSAKeyRestriction: d.RSAKeyRestriction, DSAKeyRestriction: d.DSAKeyRestriction,
		ECDSAKeyRestriction: d.ECDSAKeyRestriction, ED25519KeyRestriction: d.ED25519KeyRestriction,
	}
}

// decode reads the row over defaults.
func (r *settingsRow) decode(defaults domain.Settings) (*domain.Settings, error) {
	d := docOf(&defaults)
	d.RestrictedVisibilityLevels, d.DomainWhitelist, d.DomainBlacklist, d.RepositoryStorages = nil, nil, nil, nil
	if err := json.Unmarshal([]byte(r.Data), &d); err != nil {
		return nil, fmt.Errorf("decode application settings: %w", err)
	}
	if d.RepositoryStorages == nil {
		d.RepositoryStorages = defaults.RepositoryStorages
	}
	s := d.domain()
	s.ID, s.CreatedAt, s.UpdatedAt = r.ID, r.CreatedAt.UTC(), r.UpdatedAt.UTC()
	return &s, nil
}

type settingsStore struct{ s *Store }

var _ ports.SettingsStore = (*settingsStore)(nil)

// Settings is the application settings store.
func (s *Store) Settings() ports.SettingsStore { return &settingsStore{s} }

// load reads the row, inserting the defaults first when there is none;
// ON CONFLICT lets nodes starting together agree on one row.
func (st *settingsStore) load(ctx context.Context, db bun.IDB, defaults domain.Settings, lock bool) (*settingsRow, error) {
	var r settingsRow
	q := db.NewSelect().Model(&r).Where("aps.id = ?", settingsID)
	if lock {
		q = st.s.forUpdate(q)
	}
	err := q.Scan(ctx)
	if err == nil {
		return &r, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("read application settings: %w", err)
	}
	data, err := json.Marshal(docOf(&defaults))
	if err != nil {
		return nil, fmt.Errorf("encode application settings: %w", err)
	}
	t := now()
	r = settingsRow{ID: settingsID, Data: string(data), CreatedAt: t, UpdatedAt: t}
	if _, err := db.NewInsert().Model(&r).On("CONFLICT (id) DO NOTHING").Exec(ctx); err != nil {
		return nil, fmt.Errorf("store default application settings: %w", err)
	}
	q = db.NewSelect().Model(&r).Where("aps.id = ?", settingsID)
	if lock {
		q = st.s.forUpdate(q)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("read application settings: %w", err)
	}
	return &r, nil
}

func (st *settingsStore) Get(ctx context.Context, defaults domain.Settings) (*domain.Settings, error) {
	r, err := st.load(ctx, st.s.Conn(ctx), defaults, false)
	if err != nil {
		return nil, err
	}
	return r.decode(defaults)
}

func (st *settingsStore) Update(ctx context.Context, defaults domain.Settings, fn func(s *domain.Settings) error) (*domain.Settings, error) {
	var out *domain.Settings
	var editErr error
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		r, err := st.load(ctx, db, defaults, true)
		if err != nil {
			return err
		}
		v, err := r.decode(defaults)
		if err != nil {
			return err
		}
		if editErr = fn(v); editErr != nil {
			return editErr
		}
		data, err := json.Marshal(docOf(v))
		if err != nil {
			return fmt.Errorf("encode application settings: %w", err)
		}
		r.Data, r.UpdatedAt = string(data), edited(now(), r.UpdatedAt)
		if _, err := db.NewUpdate().Model(r).Column("data", "updated_at").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("save application settings: %w", err)
		}
		out, err = r.decode(defaults)
		return err
	})
	if editErr != nil {
		return nil, editErr
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}
