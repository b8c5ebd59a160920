package bunstore

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// systemHookRow is a row of web_hooks of type SystemHook. It leaves
// project_id (NULL) and the project event flags (off) to the defaults.
type systemHookRow struct {
	bun.BaseModel `bun:"table:web_hooks,alias:sh"`

	ID                    int64      `bun:"id,pk,autoincrement"`
	Type                  string     `bun:"type"`
	URL                   string     `bun:"url"`
	Token                 string     `bun:"token"`
	PushEvents            bool       `bun:"push_events"`
	TagPushEvents         bool       `bun:"tag_push_events"`
	EnableSSLVerification bool       `bun:"enable_ssl_verification"`
	FailureCount          int        `bun:"failure_count"`
	DisabledUntil         *time.Time `bun:"disabled_until"`
	CreatedAt             time.Time  `bun:"created_at"`
	UpdatedAt             time.Time  `bun:"updated_at"`
}

func (r *systemHookRow) domain() domain.SystemHook {
	return domain.SystemHook{ID: r.ID, URL: r.URL, Token: r.Token,
		PushEvents: r.PushEvents, TagPushEvents: r.TagPushEvents, EnableSSLVerification: r.EnableSSLVerification,
		FailureCount: r.FailureCount, DisabledUntil: utcPtr(r.DisabledUntil),
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

var systemHookTable = tableOf("Hook", (*systemHookRow).domain)

type systemHookStore struct{ s *Store }

func (st *systemHookStore) List(ctx context.Context, p domain.Page) ([]domain.SystemHook, int, error) {
	out, n, err := systemHookTable.page(ctx, st.s.Conn(ctx).NewSelect().Where("sh.type = ?", systemHookType).OrderExpr("sh.id"), p)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list system hooks: %w", err)
	}
	return out, n, nil
}

func (st *systemHookStore) Get(ctx context.Context, id int64) (*domain.SystemHook, error) {
	h, err := systemHookTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("sh.type = ? AND sh.id = ?", systemHookType, id))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get system hook %d: %w", id, err)
	}
	return h, nil
}

// Create sets the times a zero CreatedAt or UpdatedAt leaves (now), and ID.
func (st *systemHookStore) Create(ctx context.Context, h *domain.SystemHook) error {
	row := &systemHookRow{Type: systemHookType, URL: h.URL, Token: h.Token,
		PushEvents: h.PushEvents, TagPushEvents: h.TagPushEvents, EnableSSLVerification: h.EnableSSLVerification,
		FailureCount: h.FailureCount, DisabledUntil: tsPtr(h.DisabledUntil)}
	row.CreatedAt, row.UpdatedAt = created(h.CreatedAt, h.UpdatedAt)
	if err := st.s.insert(ctx, row, nil, "id"); err != nil {
		return fmt.Errorf("bunstore: create system hook: %w", err)
	}
	*h = row.domain()
	return nil
}

// Delete leaves the hook's deliveries to the foreign key's cascade.
func (st *systemHookStore) Delete(ctx context.Context, id int64) error {
	if err := systemHookTable.deleteOne(ctx, st.s.Conn(ctx), "type = ? AND id = ?", systemHookType, id); err != nil {
		return fmt.Errorf("bunstore: delete system hook %d: %w", id, err)
	}
	return nil
}

var _ ports.SystemHookStore = (*systemHookStore)(nil)

// hookKindColumns are the web_hooks flag columns by the event kind they
// select: HooksFor only ever puts one of these into SQL.
var hookKindColumns = map[domain.HookEventKind]string{
	domain.HookPush:               "push_events",
	domain.HookTagPush:            "tag_push_events",
	domain.HookIssues:             "issues_events",
	domain.HookConfidentialIssues: "confidential_issues_events",
	domain.HookMergeRequests:      "merge_requests_events",
	domain.HookNotes:              "note_events",
	domain.HookJobs:               "job_events",
	domain.HookPipelines:          "pipeline_events",
	domain.HookWikiPages:          "wiki_page_events",
}

type hookRouter struct{ s *Store }

// HooksFor is one query: each branch of the UNION ALL reads one index
// (web_hooks_project_id_idx for the project's hooks, web_hooks_type_idx
// for the system hooks).
func (r *hookRouter) HooksFor(ctx context.Context, projectID int64, kind domain.HookEventKind) ([]int64, error) {
	const system = "SELECT id FROM web_hooks WHERE type = 'SystemHook'"
	var query string
	var args []any
	switch kind {
	case domain.HookSystem:
		query = system
	case domain.HookPush, domain.HookTagPush:
		col := hookKindColumns[kind]
		query = "SELECT id FROM web_hooks WHERE type = 'ProjectHook' AND project_id = ? AND " + col +
			" UNION ALL " + system + " AND " + col
		args = []any{projectID}
	default:
		col, ok := hookKindColumns[kind]
		if !ok {
			return nil, fmt.Errorf("bunstore: hooks for %q: unknown event kind", kind)
		}
		query = "SELECT id FROM web_hooks WHERE type = 'ProjectHook' AND project_id = ? AND " + col
		args = []any{projectID}
	}
	ids := []int64{}
	if err := r.s.Conn(ctx).NewRaw(query+" ORDER BY id", args...).Scan(ctx, &ids); err != nil {
		return nil, fmt.Errorf("bunstore: hooks for %s of project %d: %w", kind, projectID, err)
	}
	return ids, nil
}

var _ ports.HookRouter = (*hookRouter)(nil)
