package bunstore

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// The web_hooks types (GitLab's STI column): a project hook has a
// project, a system hook none.
const (
	projectHookType = "ProjectHook"
	systemHookType  = "SystemHook"
)

// hookRow is a row of web_hooks of type ProjectHook.
type hookRow struct {
	bun.BaseModel `bun:"table:web_hooks,alias:h"`

	ID                       int64      `bun:"id,pk,autoincrement"`
	Type                     string     `bun:"type"`
	ProjectID                int64      `bun:"project_id"`
	URL                      string     `bun:"url"`
	Token                    string     `bun:"token"`
	PushEvents               bool       `bun:"push_events"`
	TagPushEvents            bool       `bun:"tag_push_events"`
	IssuesEvents             bool       `bun:"issues_events"`
	ConfidentialIssuesEvents bool       `bun:"confidential_issues_events"`
	MergeRequestsEvents      bool       `bun:"merge_requests_events"`
	NoteEvents               bool       `bun:"note_events"`
	JobEvents                bool       `bun:"job_events"`
	PipelineEvents           bool       `bun:"pipeline_events"`
	WikiPageEvents           bool       `bun:"wiki_page_events"`
	EnableSSLVerification    bool       `bun:"enable_ssl_verification"`
	FailureCount             int        `bun:"failure_count"`
	DisabledUntil            *time.Time `bun:"disabled_until"`
	CreatedAt                time.Time  `bun:"created_at"`
	UpdatedAt                time.Time  `bun:"updated_at"`
}

func newHookRow(h *domain.ProjectHook) *hookRow {
	return &hookRow{ID: h.ID, Type: projectHookType, ProjectID: h.ProjectID, URL: h.URL, Token: h.Token,
		PushEvents: h.PushEvents, TagPushEvents: h.TagPushEvents, IssuesEvents: h.IssuesEvents,
		ConfidentialIssuesEvents: h.ConfidentialIssuesEvents, MergeRequestsEvents: h.MergeRequestsEvents,
		NoteEvents: h.NoteEvents, JobEvents: h.JobEvents, PipelineEvents: h.PipelineEvents,
		WikiPageEvents: h.WikiPageEvents, EnableSSLVerification: h.EnableSSLVerification,
		FailureCount: h.FailureCount, DisabledUntil: tsPtr(h.DisabledUntil),
		CreatedAt: ts(h.CreatedAt), UpdatedAt: ts(h.UpdatedAt)}
}

func (r *hookRow) domain() domain.ProjectHook {
	return domain.ProjectHook{ID: r.ID, ProjectID: r.ProjectID, URL: r.URL, Token: r.Token,
		PushEvents: r.PushEvents, TagPushEvents: r.TagPushEvents, IssuesEvents: r.IssuesEvents,
		ConfidentialIssuesEvents: r.ConfidentialIssuesEvents, MergeRequestsEvents: r.MergeRequestsEvents,
		NoteEvents: r.NoteEvents, JobEvents: r.JobEvents, PipelineEvents: r.PipelineEvents,
		WikiPageEvents: r.WikiPageEvents, EnableSSLVerification: r.EnableSSLVerification,
		FailureCount: r.FailureCount, DisabledUntil: utcPtr(r.DisabledUntil),
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

var hookTable = tableOf("Hook", (*hookRow).domain)

type hookStore struct{ s *Store }

func (st *hookStore) List(ctx context.Context, projectID int64, p domain.Page) ([]domain.ProjectHook, int, error) {
	out, n, err := hookTable.page(ctx, st.s.Conn(ctx).NewSelect().Where("h.type = ? AND h.project_id = ?", projectHookType, projectID).OrderExpr("h.id"), p)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list hooks of project %d: %w", projectID, err)
	}
	return out, n, nil
}

func (st *hookStore) Get(ctx context.Context, projectID, id int64) (*domain.ProjectHook, error) {
	h, err := hookTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("h.type = ? AND h.project_id = ? AND h.id = ?", projectHookType, projectID, id))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get hook %d of project %d: %w", id, projectID, err)
	}
	return h, nil
}

// Create sets the times a zero CreatedAt or UpdatedAt leaves (now), and ID.
func (st *hookStore) Create(ctx context.Context, h *domain.ProjectHook) error {
	row := newHookRow(h)
	row.ID = 0
	row.CreatedAt, row.UpdatedAt = created(h.CreatedAt, h.UpdatedAt)
	if err := st.s.insert(ctx, row, parentErr("Project"), "id"); err != nil {
		return fmt.Errorf("bunstore: create hook in project %d: %w", h.ProjectID, err)
	}
	*h = row.domain()
	return nil
}

// Update keeps ID, ProjectID and CreatedAt; an UpdatedAt fn leaves as it
// was becomes now.
func (st *hookStore) Update(ctx context.Context, projectID, id int64, fn func(h *domain.ProjectHook) error) (*domain.ProjectHook, error) {
	save := func(ctx context.Context, db bun.IDB, old, h *domain.ProjectHook) (*domain.ProjectHook, error) {
		h.ID, h.ProjectID, h.CreatedAt = old.ID, old.ProjectID, old.CreatedAt
		h.UpdatedAt = edited(ts(h.UpdatedAt), old.UpdatedAt)
		return hookTable.save(ctx, db, newHookRow(h), nil)
	}
	load := hookTable.locked(st.s, "h.type = ? AND h.project_id = ? AND h.id = ?", projectHookType, projectID, id)
	return modify(ctx, st.s, load, fn, save, func(err error) error {
		return fmt.Errorf("bunstore: update hook %d of project %d: %w", id, projectID, err)
	})
}

func (st *hookStore) Delete(ctx context.Context, projectID, id int64) error {
	if err := hookTable.deleteOne(ctx, st.s.Conn(ctx), "type = ? AND project_id = ? AND id = ?", projectHookType, projectID, id); err != nil {
		return fmt.Errorf("bunstore: delete hook %d of project %d: %w", id, projectID, err)
	}
	return nil
}

var _ ports.HookStore = (*hookStore)(nil)
