package domain

import "time"

// ProjectHook is a project's webhook: where to POST which events, as
// GitLab's ProjectHook model keeps it.
type ProjectHook struct {
	ID        int64
	ProjectID int64
	URL       string
	// Token is sent as X-Gitlab-Token with each delivery. It is kept as
	// given (it must be sent back verbatim) and never shown by the API.
	Token string

	PushEvents               bool
	TagPushEvents            bool
	IssuesEvents             bool
	ConfidentialIssuesEvents bool
	MergeRequestsEvents      bool
	NoteEvents               bool
	JobEvents                bool
	PipelineEvents           bool
	WikiPageEvents           bool
	EnableSSLVerification    bool

	// FailureCount counts the deliveries that failed in a row; a success
	// resets it. From the configured threshold on, each failure disables
	// the hook until DisabledUntil (a backoff that doubles), as GitLab
	// does with hooks that keep failing. Editing the hook re-enables it.
	FailureCount  int
	DisabledUntil *time.Time

	CreatedAt time.Time
	UpdatedAt time.Time
}

// NewProjectHook is a hook with GitLab's column defaults: push events
// and SSL verification on, every other event off.
func NewProjectHook(projectID int64, url string) ProjectHook {
	return ProjectHook{ProjectID: projectID, URL: url, PushEvents: true, EnableSSLVerification: true}
}

// Wants reports whether the hook subscribed to events of kind.
func (h ProjectHook) Wants(kind HookEventKind) bool {
	switch kind {
	case HookPush:
		return h.PushEvents
	case HookTagPush:
		return h.TagPushEvents
	case HookIssues:
		return h.IssuesEvents
	case HookConfidentialIssues:
		return h.ConfidentialIssuesEvents
	case HookMergeRequests:
		return h.MergeRequestsEvents
	case HookNotes:
		return h.NoteEvents
	case HookJobs:
		return h.JobEvents
	case HookPipelines:
		return h.PipelineEvents
	case HookWikiPages:
		return h.WikiPageEvents
	}
	return false
}

// AlertStatus is how the API shows the hook's health, in the words of
// later GitLab versions: "executable", or "temporarily_disabled" until
// DisabledUntil.
func (h ProjectHook) AlertStatus(now time.Time) string {
	if h.DisabledUntil != nil && now.Before(*h.DisabledUntil) {
		return "temporarily_disabled"
	}
	return "executable"
}

// SystemHook is an instance-wide webhook that admins manage (GitLab's
// SystemHook): it receives the system events (project_create,
// user_create ...) always, and pushes and tag pushes of every project
// when PushEvents or TagPushEvents is on.
type SystemHook struct {
	ID    int64
	URL   string
	Token string

	PushEvents            bool
	TagPushEvents         bool
	EnableSSLVerification bool

	FailureCount  int
	DisabledUntil *time.Time

	CreatedAt time.Time
	UpdatedAt time.Time
}

// NewSystemHook is a system hook with GitLab's defaults: push events and
// SSL verification on (the web_hooks column defaults).
func NewSystemHook(url string) SystemHook {
	return SystemHook{URL: url, PushEvents: true, EnableSSLVerification: true}
}

// HookEventKind is a kind of event a hook may subscribe to: one of the
// *_events flags of a hook (HookSystem: the system events, which every
// system hook receives).
type HookEventKind string

// The event kinds, by the flag that selects them.
const (
	HookPush               HookEventKind = "push_events"
	HookTagPush            HookEventKind = "tag_push_events"
	HookIssues             HookEventKind = "issues_events"
	HookConfidentialIssues HookEventKind = "confidential_issues_events"
	HookMergeRequests      HookEventKind = "merge_requests_events"
	HookNotes              HookEventKind = "note_events"
	HookJobs               HookEventKind = "job_events"
	HookPipelines          HookEventKind = "pipeline_events"
	HookWikiPages          HookEventKind = "wiki_page_events"
	HookSystem             HookEventKind = "system_events"
)

// The X-Gitlab-Event header of each payload, as GitLab 9.x's
// WebHookService sends it (hook_name.singularize.titleize).
const (
	HookEventPush         = "Push Hook"
	HookEventTagPush      = "Tag Push Hook"
	HookEventIssue        = "Issue Hook"
	HookEventNote         = "Note Hook"
	HookEventMergeRequest = "Merge Request Hook"
	HookEventPipeline     = "Pipeline Hook"
	HookEventJob          = "Job Hook"
	HookEventSystem       = "System Hook"
)

// HookTarget is where a hook sends: what a delivery needs of its hook at
// the moment it is attempted (the hook may have been edited since the
// delivery was queued, and the current URL and token win).
type HookTarget struct {
	URL       string
	Token     string
	VerifyTLS bool
	// System is set for a system hook.
	System bool
}
