package bunstore

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// eventRow is a row of events. author_id and project_id carry no foreign
// keys: the feed is history and outlives what it mentions. Data is the JSON
// payload as text (NULL when absent), readable with psql or sqlite3.
type eventRow struct {
	bun.BaseModel `bun:"table:events,alias:e"`

	ID           int64     `bun:"id,pk,autoincrement"`
	ProjectID    *int64    `bun:"project_id"`
	AuthorID     int64     `bun:"author_id"`
	Action       string    `bun:"action"`
	TargetID     *int64    `bun:"target_id"`
	TargetType   string    `bun:"target_type"`
	TargetTitle  string    `bun:"target_title"`
	Title        string    `bun:"title"`
	Data         *string   `bun:"data"`
	NoteID       *int64    `bun:"note_id"`
	Confidential bool      `bun:"confidential"`
	CreatedAt    time.Time `bun:"created_at"`
}

func (r *eventRow) domain() domain.Event {
	var data []byte
	if r.Data != nil {
		data = []byte(*r.Data)
	}
	return domain.Event{
		ID:           r.ID,
		ProjectID:    r.ProjectID,
		AuthorID:     r.AuthorID,
		Action:       r.Action,
		TargetID:     r.TargetID,
		TargetType:   r.TargetType,
		TargetTitle:  r.TargetTitle,
		Title:        r.Title,
		Data:         data,
		NoteID:       r.NoteID,
		Confidential: r.Confidential,
		CreatedAt:    r.CreatedAt.UTC(),
	}
}

var eventTable = tableOf("Event", (*eventRow).domain)

type eventStore struct{ s *Store }

func (st *eventStore) Create(ctx context.Context, e *domain.Event) error {
	row := &eventRow{
		ProjectID:    e.ProjectID,
		AuthorID:     e.AuthorID,
		Action:       e.Action,
		TargetID:     e.TargetID,
		TargetType:   e.TargetType,
		TargetTitle:  e.TargetTitle,
		Title:        e.Title,
		NoteID:       e.NoteID,
		Confidential: e.Confidential,
		CreatedAt:    orNow(e.CreatedAt),
	}
	if len(e.Data) > 0 {
		row.Data = nullString(string(e.Data))
	}
	if _, err := st.s.Conn(ctx).NewInsert().Model(row).Returning("id").Exec(ctx); err != nil {
		return fmt.Errorf("bunstore: create event: %w", err)
	}
	*e = row.domain()
	return nil
}

// List applies every filter; Before and After are exclusive bounds, as
// GitLab's events finder uses them. Events without a project are always
// readable; the others only when their project still exists and
// f.Readable lets the reader see it (the predicate project lists use), unless
// f.Readable.All. Confidential events need f.Viewer's leave too.
func (st *eventStore) List(ctx context.Context, f domain.EventFilter) ([]domain.Event, int, error) {
	q := st.s.Conn(ctx).NewSelect()
	q = whereSet(q, "author_id = ?", f.AuthorID)
	q = whereSet(q, "project_id = ?", f.ProjectID)
	q = whereSet(q, "action = ?", f.Action)
	q = whereSet(q, "target_type = ?", f.TargetType)
	if f.Before != nil {
		q = q.Where("created_at < ?", ts(*f.Before))
	}
	if f.After != nil {
		q = q.Where("created_at > ?", ts(*f.After))
	}
	if !f.Readable.All {
		readable := whereReadable(st.s.Conn(ctx).NewSelect().Table("projects").Column("id"), f.Readable, "")
		q = q.Where("(project_id IS NULL OR project_id IN (?))", readable)
	}
	q = whereViewer(st.s.Conn(ctx), q, f.Viewer)
	if f.Code != nil && !f.Readable.All && !f.Code.All {
		code := whereReadable(st.s.Conn(ctx).NewSelect().Table("projects").Column("id"), *f.Code, "")
		q = q.Where("(project_id IS NULL OR project_id IN (?) OR NOT ("+
			"e.action = ? OR e.target_type = ? OR EXISTS (SELECT 1 FROM notes AS mn WHERE mn.id = e.note_id AND mn.noteable_type = ?)))",
			code, domain.ActionPushed, domain.TargetMergeRequest, domain.TargetMergeRequest)
	}
	if f.Ascending {
		q = q.Order("created_at", "id")
	} else {
		q = q.OrderExpr("created_at DESC, id DESC")
	}
	out, n, err := eventTable.page(ctx, q, f.Page)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list events: %w", err)
	}
	return out, n, nil
}

// whereViewer hides the confidential events v may not see, by the rule
// issues use: everything for v.All, otherwise events in v's projects and
// namespaces (reporter and up) and v's own events (an event carries no
// assignee, so the author stands in for the issue's author and assignee).
// An event is confidential when recorded so, or when the issue it targets,
// or the issue its note is on, is confidential now: issues made
// confidential after their events were recorded hide them too.
func whereViewer(db bun.IDB, q *bun.SelectQuery, v domain.IssueViewer) *bun.SelectQuery {
	if v.All {
		return q
	}
	return q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
		q = q.WhereGroup(" OR ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("e.confidential = ?", false).
				Where("NOT EXISTS (SELECT 1 FROM issues AS ci WHERE ci.id = e.target_id AND e.target_type = ? AND ci.confidential = ?)",
					domain.TargetIssue, true).
				Where("NOT EXISTS (SELECT 1 FROM notes AS cn JOIN issues AS ci ON ci.id = cn.noteable_id "+
					"WHERE cn.id = e.note_id AND cn.noteable_type = ? AND ci.confidential = ?)", domain.TargetIssue, true)
		})
		if v.UserID != 0 {
			q = q.WhereOr("e.author_id = ?", v.UserID)
		}
		if len(v.ProjectIDs) > 0 {
			q = q.WhereOr("e.project_id IN (?)", bun.List(dedupeIDs(v.ProjectIDs)))
		}
		if len(v.NamespaceIDs) > 0 {
			inNamespaces := db.NewSelect().Table("projects").Column("id").
				Where("namespace_id IN (?)", bun.List(dedupeIDs(v.NamespaceIDs)))
			q = q.WhereOr("e.project_id IN (?)", inNamespaces)
		}
		return q
	})
}

var _ ports.EventStore = (*eventStore)(nil)
