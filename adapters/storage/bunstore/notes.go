package bunstore

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// noteRow is a row of notes. noteable_id has no foreign key (it points at
// a table chosen by noteable_type), nor has author_id (notes are history).
type noteRow struct {
	bun.BaseModel `bun:"table:notes,alias:n"`

	ID           int64     `bun:"id,pk,autoincrement"`
	ProjectID    *int64    `bun:"project_id"`
	NoteableType string    `bun:"noteable_type"`
	NoteableID   int64     `bun:"noteable_id"`
	AuthorID     int64     `bun:"author_id"`
	Body         string    `bun:"body"`
	System       bool      `bun:"system"`
	CreatedAt    time.Time `bun:"created_at"`
	UpdatedAt    time.Time `bun:"updated_at"`
}

func (r *noteRow) domain() domain.Note {
	return domain.Note{
		ID:           r.ID,
		ProjectID:    r.ProjectID,
		NoteableType: r.NoteableType,
		NoteableID:   r.NoteableID,
		AuthorID:     r.AuthorID,
		Body:         r.Body,
		System:       r.System,
		CreatedAt:    r.CreatedAt.UTC(),
		UpdatedAt:    r.UpdatedAt.UTC(),
	}
}

var noteTable = tableOf("Note", (*noteRow).domain)

type noteStore struct{ s *Store }

// Create inserts n; a zero UpdatedAt is CreatedAt. An unknown project is
// core.ErrNotFound.
func (st *noteStore) Create(ctx context.Context, n *domain.Note) error {
	row := &noteRow{
		ProjectID:    n.ProjectID,
		NoteableType: n.NoteableType,
		NoteableID:   n.NoteableID,
		AuthorID:     n.AuthorID,
		Body:         n.Body,
		System:       n.System,
	}
	row.CreatedAt, row.UpdatedAt = created(n.CreatedAt, n.UpdatedAt)
	if err := st.s.insert(ctx, row, parentErr("Project"), "id"); err != nil {
		return fmt.Errorf("bunstore: create note on %s %d: %w", n.NoteableType, n.NoteableID, err)
	}
	*n = row.domain()
	return nil
}

func (st *noteStore) Get(ctx context.Context, id int64) (*domain.Note, error) {
	n, err := noteTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("n.id = ?", id))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get note %d: %w", id, err)
	}
	return n, nil
}

// GetMany reads the notes in one query.
func (st *noteStore) GetMany(ctx context.Context, ids []int64) ([]domain.Note, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	out, err := noteTable.list(ctx, st.s.Conn(ctx).NewSelect().Where("n.id IN (?)", bun.List(dedupeIDs(ids))))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get notes: %w", err)
	}
	return out, nil
}

// List orders by creation, ID breaking ties, and costs the count and the page.
func (st *noteStore) List(ctx context.Context, noteableType string, noteableID int64, p domain.Page) ([]domain.Note, int, error) {
	return st.Query(ctx, domain.NoteQuery{NoteableType: noteableType, NoteableID: noteableID, Page: p})
}

// Query pages in the database, in the asked order (the noteable index
// serves the filter; a noteable's notes are then sorted).
func (st *noteStore) Query(ctx context.Context, nq domain.NoteQuery) ([]domain.Note, int, error) {
	col, dir := "n.created_at", "ASC"
	if nq.ByUpdated {
		col = "n.updated_at"
	}
	if nq.Descending {
		dir = "DESC"
	}
	q := st.s.Conn(ctx).NewSelect().
		Where("n.noteable_type = ? AND n.noteable_id = ?", nq.NoteableType, nq.NoteableID).
		OrderExpr(col + " " + dir + ", n.id " + dir)
	out, total, err := noteTable.page(ctx, q, nq.Page)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list notes of %s %d: %w", nq.NoteableType, nq.NoteableID, err)
	}
	return out, total, nil
}

// Update locks the row, applies fn and saves Body and UpdatedAt (now unless
// fn set it); the other fields do not change. fn's error is returned as is.
func (st *noteStore) Update(ctx context.Context, id int64, fn func(n *domain.Note) error) (*domain.Note, error) {
	save := func(ctx context.Context, db bun.IDB, old, n *domain.Note) (*domain.Note, error) {
		out := *old
		out.Body, out.UpdatedAt = n.Body, ts(edited(n.UpdatedAt, old.UpdatedAt))
		row := &noteRow{ID: old.ID, Body: out.Body, UpdatedAt: out.UpdatedAt}
		if _, err := db.NewUpdate().Model(row).Column("body", "updated_at").WherePK().Exec(ctx); err != nil {
			return nil, err
		}
		return &out, nil
	}
	return modify(ctx, st.s, noteTable.locked(st.s, "n.id = ?", id), fn, save, func(err error) error {
		return fmt.Errorf("bunstore: update note %d: %w", id, err)
	})
}

func (st *noteStore) Delete(ctx context.Context, id int64) error {
	if err := noteTable.deleteOne(ctx, st.s.Conn(ctx), "id = ?", id); err != nil {
		return fmt.Errorf("bunstore: delete note %d: %w", id, err)
	}
	return nil
}

// DeleteNoteable removes every note of one noteable; none is no error.
func (st *noteStore) DeleteNoteable(ctx context.Context, noteableType string, noteableID int64) error {
	_, err := st.s.Conn(ctx).NewDelete().Model((*noteRow)(nil)).
		Where("noteable_type = ? AND noteable_id = ?", noteableType, noteableID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: delete notes of %s %d: %w", noteableType, noteableID, err)
	}
	return nil
}

// CountUserNotes groups the non-system notes of ids in one query.
func (st *noteStore) CountUserNotes(ctx context.Context, noteableType string, ids []int64) (map[int64]int, error) {
	if len(ids) == 0 {
		return map[int64]int{}, nil
	}
	q := st.s.Conn(ctx).NewSelect().Model((*noteRow)(nil)).
		Where("n.noteable_type = ? AND n.noteable_id IN (?) AND n.system = ?", noteableType, bun.List(dedupeIDs(ids)), false)
	out, err := countBy(ctx, q, "n.noteable_id")
	if err != nil {
		return nil, fmt.Errorf("bunstore: count notes of %d %s: %w", len(ids), noteableType, err)
	}
	return out, nil
}

var _ ports.NoteStore = (*noteStore)(nil)
