package ports

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

// NoteStore keeps comments and system notes.
type NoteStore interface {
	// Create inserts n and sets its ID (zero times mean now).
	Create(ctx context.Context, n *domain.Note) error
	// Get reads one note (core.ErrNotFound).
	Get(ctx context.Context, id int64) (*domain.Note, error)
	// GetMany returns the notes with these IDs in any order; missing IDs
	// are skipped.
	GetMany(ctx context.Context, ids []int64) ([]domain.Note, error)
	// List returns one page of a noteable's notes, oldest first, and the total.
	List(ctx context.Context, noteableType string, noteableID int64, p domain.Page) ([]domain.Note, int, error)
	// Query is List in the order q asks (the ID breaking ties the same way).
	Query(ctx context.Context, q domain.NoteQuery) ([]domain.Note, int, error)
	// Update applies fn under a lock and saves body and updated_at (core.ErrNotFound).
	Update(ctx context.Context, id int64, fn func(n *domain.Note) error) (*domain.Note, error)
	// Delete removes the note (core.ErrNotFound).
	Delete(ctx context.Context, id int64) error
	// DeleteNoteable removes every note of a noteable.
	DeleteNoteable(ctx context.Context, noteableType string, noteableID int64) error
	// CountUserNotes counts the non-system notes of each noteable of a type
	// in one query; noteables without notes are absent from the map.
	CountUserNotes(ctx context.Context, noteableType string, ids []int64) (map[int64]int, error)
}
