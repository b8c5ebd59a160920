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

	// FailureCount and DisabledUntil are for disabling a failing hook
	// for a while; nothing sets them yet.
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
