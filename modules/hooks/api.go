package hooks

import (
	"time"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// HookID is an id from the path ({hook_id}, a system hook's {id}, a
// delivery's {hook_log_id}): a number, or Invalid (Grape's 400 "<name> is
// invalid", reported after the access checks).
type HookID struct {
	ID      int64
	Invalid error
}

// Input is POST and PUT /projects/:id/hooks: GitLab 9.x's
// project_hook_properties (url required on both).
type Input struct {
	URL                      *string `param:"url"`
	Token                    *string `param:"token"`
	PushEvents               *bool   `param:"push_events"`
	IssuesEvents             *bool   `param:"issues_events"`
	ConfidentialIssuesEvents *bool   `param:"confidential_issues_events"`
	MergeRequestsEvents      *bool   `param:"merge_requests_events"`
	TagPushEvents            *bool   `param:"tag_push_events"`
	NoteEvents               *bool   `param:"note_events"`
	JobEvents                *bool   `param:"job_events"`
	PipelineEvents           *bool   `param:"pipeline_events"`
	WikiPageEvents           *bool   `param:"wiki_page_events"`
	EnableSSLVerification    *bool   `param:"enable_ssl_verification"`
	// Invalid is the request's own problem (a missing url, a bad
	// boolean), reported after the access checks.
	Invalid error `param:"-"`
}

// apply sets what in gives (declared_params(include_missing: false)).
func (in Input) apply(h *domain.ProjectHook) {
	set := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	if in.URL != nil {
		h.URL = *in.URL
	}
	if in.Token != nil {
		h.Token = *in.Token
	}
	set(&h.PushEvents, in.PushEvents)
	set(&h.IssuesEvents, in.IssuesEvents)
	set(&h.ConfidentialIssuesEvents, in.ConfidentialIssuesEvents)
	set(&h.MergeRequestsEvents, in.MergeRequestsEvents)
	set(&h.TagPushEvents, in.TagPushEvents)
	set(&h.NoteEvents, in.NoteEvents)
	set(&h.JobEvents, in.JobEvents)
	set(&h.PipelineEvents, in.PipelineEvents)
	set(&h.WikiPageEvents, in.WikiPageEvents)
	set(&h.EnableSSLVerification, in.EnableSSLVerification)
}

// hookJSON is GitLab 9.x's Entities::ProjectHook (with Hook's fields),
// in the order of the 9.x documentation's example. The token is never
// shown. repository_update_events is Hook's (system hooks'): always
// false for a project hook.
type hookJSON struct {
	ID                       int64      `json:"id"`
	URL                      string     `json:"url"`
	ProjectID                int64      `json:"project_id"`
	PushEvents               bool       `json:"push_events"`
	IssuesEvents             bool       `json:"issues_events"`
	ConfidentialIssuesEvents bool       `json:"confidential_issues_events"`
	MergeRequestsEvents      bool       `json:"merge_requests_events"`
	TagPushEvents            bool       `json:"tag_push_events"`
	NoteEvents               bool       `json:"note_events"`
	JobEvents                bool       `json:"job_events"`
	PipelineEvents           bool       `json:"pipeline_events"`
	WikiPageEvents           bool       `json:"wiki_page_events"`
	RepositoryUpdateEvents   bool       `json:"repository_update_events"`
	EnableSSLVerification    bool       `json:"enable_ssl_verification"`
	CreatedAt                httpx.Time `json:"created_at"`
	// AlertStatus and DisabledUntil say whether failures disabled the
	// hook for a while, with later GitLab's keys.
	AlertStatus   string      `json:"alert_status"`
	DisabledUntil *httpx.Time `json:"disabled_until"`
}

func hookOf(h *domain.ProjectHook, now time.Time) hookJSON {
	out := hookJSON{ID: h.ID, URL: h.URL, ProjectID: h.ProjectID,
		PushEvents: h.PushEvents, IssuesEvents: h.IssuesEvents, ConfidentialIssuesEvents: h.ConfidentialIssuesEvents,
		MergeRequestsEvents: h.MergeRequestsEvents, TagPushEvents: h.TagPushEvents, NoteEvents: h.NoteEvents,
		JobEvents: h.JobEvents, PipelineEvents: h.PipelineEvents, WikiPageEvents: h.WikiPageEvents,
		EnableSSLVerification: h.EnableSSLVerification, CreatedAt: httpx.TimeOf(h.CreatedAt),
		AlertStatus: h.AlertStatus(now)}
	if h.DisabledUntil != nil && now.Before(*h.DisabledUntil) {
		until := httpx.TimeOf(*h.DisabledUntil)
		out.DisabledUntil = &until
	}
	return out
}
