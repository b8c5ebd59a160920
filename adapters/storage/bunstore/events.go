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
	bun.BaseModel `bun:"table:events"`

	ID          int64     `bun:"id,pk,autoincrement"`
	ProjectID   *int64    `bun:"project_id"`
	AuthorID    int64     `bun:"author_id"`
	Action      string    `bun:"action"`
	TargetID    *int64    `bun:"target_id"`
	TargetType  string    `bun:"target_type"`
	TargetTitle string    `bun:"target_title"`
	Title       string    `bun:"title"`
	Data        *string   `bun:"data"`
	NoteID      *int64    `bun:"note_id"`
	CreatedAt   time.Time `bun:"created_at"`
}

func (r *eventRow) domain() domain.Event {
	var data []byte
	if r.Data != nil {
		data = []byte(*r.Data)
	}
	return domain.Event{
		ID:          r.ID,
		ProjectID:   r.ProjectID,
		AuthorID:    r.AuthorID,
		Action:      r.Action,
		TargetID:    r.TargetID,
		TargetType:  r.TargetType,
		TargetTitle: r.TargetTitle,
		Title:       r.Title,
		Data:        data,
		NoteID:      r.NoteID,
		CreatedAt:   r.CreatedAt.UTC(),
	}
}

type eventStore struct{ s *Store }

func (st *eventStore) Create(ctx context.Context, e *domain.Event) error {
	row := &eventRow{
		ProjectID:   e.ProjectID,
		AuthorID:    e.AuthorID,
		Action:      e.Action,
		TargetID:    e.TargetID,
		TargetType:  e.TargetType,
		TargetTitle: e.TargetTitle,
		Title:       e.Title,
		NoteID:      e.NoteID,
		CreatedAt:   orNow(e.CreatedAt),
	}
	if len(e.Data) > 0 {
		row.Data = nullString(string(e.Data))
	}
	if _, err := st.s.idb(ctx).NewInsert().Model(row).Returning("id").Exec(ctx); err != nil {
		return fmt.Errorf("bunstore: create event: %w", err)
	}
	*e = row.domain()
	return nil
}

// List applies every filter; Before and After are exclusive bounds, as
// GitLab's events finder uses them. Events without a project are always
// readable; the others only when their project still exists and
// f.Readable lets the reader see it (the predicate project lists use), unless
// f.Readable.All.
func (st *eventStore) List(ctx context.Context, f domain.EventFilter) ([]domain.Event, int, error) {
	var rows []eventRow
	q := st.s.idb(ctx).NewSelect().Model(&rows)
	if f.AuthorID != 0 {
		q = q.Where("author_id = ?", f.AuthorID)
	}
	if f.ProjectID != 0 {
		q = q.Where("project_id = ?", f.ProjectID)
	}
	if f.Action != "" {
		q = q.Where("action = ?", f.Action)
	}
	if f.TargetType != "" {
		q = q.Where("target_type = ?", f.TargetType)
	}
	if f.Before != nil {
		q = q.Where("created_at < ?", ts(*f.Before))
	}
	if f.After != nil {
		q = q.Where("created_at > ?", ts(*f.After))
	}
	if !f.Readable.All {
		readable := whereReadable(st.s.idb(ctx).NewSelect().Table("projects").Column("id"), f.Readable, "")
		q = q.Where("(project_id IS NULL OR project_id IN (?))", readable)
	}
	if f.Ascending {
		q = q.Order("created_at", "id")
	} else {
		q = q.OrderExpr("created_at DESC, id DESC")
	}
	n, err := page(ctx, q, f.Page)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list events: %w", err)
	}
	out := make([]domain.Event, len(rows))
	for i := range rows {
		out[i] = rows[i].domain()
	}
	return out, n, nil
}

var _ ports.EventStore = (*eventStore)(nil)
