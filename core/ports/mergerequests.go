package ports

import (
	"context"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// MergeRequestStore keeps merge requests, their labels and merge state.
// Every read fills UserNotesCount (non-system notes), Upvotes and
// Downvotes (thumbsup / thumbsdown awards) in the same query.
type MergeRequestStore interface {
	// Create inserts m, setting ID and the next IID of m.ProjectID (unique
	// under concurrent creates). A second open merge request (opened or
	// reopened) for the same source project and branch and target project
	// and branch is core.ErrConflict; an unknown project is
	// core.ErrNotFound. Zero times mean now.
	Create(ctx context.Context, m *domain.MergeRequest) error
	// Get reads one merge request by project and IID (core.ErrNotFound).
	Get(ctx context.Context, projectID, iid int64) (*domain.MergeRequest, error)
	// GetByID reads one merge request by its global ID (core.ErrNotFound).
	GetByID(ctx context.Context, id int64) (*domain.MergeRequest, error)
	// GetMany returns the merge requests with these IDs, in any order.
	GetMany(ctx context.Context, ids []int64) ([]domain.MergeRequest, error)
	// Update applies fn to the merge request under a row lock and saves it
	// (labels included). fn's error is returned as is and nothing is saved.
	// UpdatedAt is set to now unless fn changed it. Reopening into a pair
	// that already has an open merge request is core.ErrConflict.
	Update(ctx context.Context, projectID, iid int64, fn func(m *domain.MergeRequest) error) (*domain.MergeRequest, error)
	// Delete removes the merge request with its labels, notes, awards,
	// todos and subscriptions (core.ErrNotFound).
	Delete(ctx context.Context, projectID, iid int64) error
	// List returns one page of f and the total.
	List(ctx context.Context, f domain.MergeRequestFilter) ([]domain.MergeRequest, int, error)
	// OpenOnBranch lists the open merge requests of projectID whose source
	// or target branch is branch (a push moved it).
	OpenOnBranch(ctx context.Context, projectID int64, branch string) ([]domain.MergeRequest, error)
	// Locked lists merge requests whose merge was started (LockedAt set)
	// before the given time: work a repair finishes or drops.
	Locked(ctx context.Context, before time.Time) ([]domain.MergeRequest, error)
}

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

// TodoStore keeps users' to-do items.
type TodoStore interface {
	// CreatePending inserts t as pending unless the user already has a
	// pending todo with the same target and action: then it returns that
	// one and false.
	CreatePending(ctx context.Context, t *domain.Todo) (*domain.Todo, bool, error)
	// Get reads one todo of a user (core.ErrNotFound, also for another
	// user's todo).
	Get(ctx context.Context, userID, id int64) (*domain.Todo, error)
	// List returns one page of a user's todos, newest first, and the total.
	List(ctx context.Context, f domain.TodoFilter) ([]domain.Todo, int, error)
	// MarkDone marks one of the user's todos done and returns it
	// (core.ErrNotFound).
	MarkDone(ctx context.Context, userID, id int64) (*domain.Todo, error)
	// MarkAllDone marks every pending todo of the user done; it returns how many.
	MarkAllDone(ctx context.Context, userID int64) (int, error)
	// MarkTargetDone marks the user's pending todos on a target done
	// (userID 0: everyone's); it returns how many.
	MarkTargetDone(ctx context.Context, userID int64, target domain.Subject) (int, error)
	// DeleteTarget removes every todo about a target.
	DeleteTarget(ctx context.Context, target domain.Subject) error
}

// SubscriptionStore keeps explicit subscriptions to issues and merge
// requests. Implicit ones (authors, assignees) are the modules' rule.
type SubscriptionStore interface {
	// Set records the user's explicit choice.
	Set(ctx context.Context, target domain.Subject, userID int64, subscribed bool) error
	// Get returns the user's explicit choice, nil when there is none.
	Get(ctx context.Context, target domain.Subject, userID int64) (*bool, error)
	// OfUser returns the user's explicit choices for targets of one type
	// with these IDs (one query); IDs without a choice are absent.
	OfUser(ctx context.Context, userID int64, targetType string, ids []int64) (map[int64]bool, error)
	// DeleteTarget removes every subscription to a target.
	DeleteTarget(ctx context.Context, target domain.Subject) error
}

// MilestoneReader lets merge requests name milestones. The issues module
// provides it; without it no milestone exists.
type MilestoneReader interface {
	// GetMany returns the milestones with these IDs, in any order.
	GetMany(ctx context.Context, ids []int64) ([]domain.Milestone, error)
	// IDsByTitle returns the IDs of the project's milestones titled title.
	IDsByTitle(ctx context.Context, projectID int64, title string) ([]int64, error)
}

// IssueReader lets merge requests find the issues they close. The issues
// module provides it; without it no issue exists.
type IssueReader interface {
	// ByIIDs returns the project's issues with these IIDs, in any order.
	ByIIDs(ctx context.Context, projectID int64, iids []int64) ([]domain.Issue, error)
}
