package hooks

import (
	"time"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// SystemInput is POST /hooks: GitLab 9.x's system hook parameters (url
// required).
type SystemInput struct {
	URL                   *string `param:"url"`
	Token                 *string `param:"token"`
	PushEvents            *bool   `param:"push_events"`
	TagPushEvents         *bool   `param:"tag_push_events"`
	EnableSSLVerification *bool   `param:"enable_ssl_verification"`
	// Invalid is the request's own problem (a missing url, a bad
	// boolean), reported after the access checks.
	Invalid error `param:"-"`
}

// apply sets what in gives (declared_params(include_missing: false)).
func (in SystemInput) apply(h *domain.SystemHook) {
	if in.URL != nil {
		h.URL = *in.URL
	}
	if in.Token != nil {
		h.Token = *in.Token
	}
	if in.PushEvents != nil {
		h.PushEvents = *in.PushEvents
	}
	if in.TagPushEvents != nil {
		h.TagPushEvents = *in.TagPushEvents
	}
	if in.EnableSSLVerification != nil {
		h.EnableSSLVerification = *in.EnableSSLVerification
	}
}

// systemHookJSON is GitLab 9.x's Entities::Hook, with alert_status and
// disabled_until as later GitLab shows them (hooks that keep failing are
// disabled for a while). The token is never shown; repository update
// events are not sent, so that flag is always false.
type systemHookJSON struct {
	ID                     int64       `json:"id"`
	URL                    string      `json:"url"`
	CreatedAt              httpx.Time  `json:"created_at"`
	PushEvents             bool        `json:"push_events"`
	TagPushEvents          bool        `json:"tag_push_events"`
	RepositoryUpdateEvents bool        `json:"repository_update_events"`
	EnableSSLVerification  bool        `json:"enable_ssl_verification"`
	AlertStatus            string      `json:"alert_status"`
	DisabledUntil          *httpx.Time `json:"disabled_until"`
}

func systemHookOf(h *domain.SystemHook, now time.Time) systemHookJSON {
	out := systemHookJSON{ID: h.ID, URL: h.URL, CreatedAt: httpx.TimeOf(h.CreatedAt),
		PushEvents: h.PushEvents, TagPushEvents: h.TagPushEvents,
		EnableSSLVerification: h.EnableSSLVerification, AlertStatus: "executable"}
	if h.DisabledUntil != nil && now.Before(*h.DisabledUntil) {
		out.AlertStatus = "temporarily_disabled"
		out.DisabledUntil = httpx.TimePtr(h.DisabledUntil)
	}
	return out
}
