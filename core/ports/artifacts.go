package ports

import (
	"context"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// ArtifactStore keeps the records of jobs' artifacts; their bytes live in
// the BlobStore under Artifact.Key.
type ArtifactStore interface {
	// Create inserts a and sets its ID; a job's second artifact of the
	// same type replaces the first, whose record is returned so that the
	// caller deletes its file after commit (nil when there was none).
	Create(ctx context.Context, a *domain.Artifact) (*domain.Artifact, error)
	// OfJobs returns the artifacts of these jobs, keyed by job ID, in one
	// query; jobs without any are absent.
	OfJobs(ctx context.Context, jobIDs []int64) (map[int64][]domain.Artifact, error)
	// DeleteOfJob removes every artifact record of a job (of the given
	// types; none given: all) and returns them.
	DeleteOfJob(ctx context.Context, jobID int64, types ...string) ([]domain.Artifact, error)
	// Keep clears ExpireAt on every artifact of the job (the keep
	// operation: they are never deleted as expired); a job without
	// artifacts is not an error.
	Keep(ctx context.Context, jobID int64) error
	// Expired lists artifacts whose ExpireAt is before t, at most limit.
	Expired(ctx context.Context, before time.Time, limit int) ([]domain.Artifact, error)
	// Delete removes one record (core.ErrNotFound).
	Delete(ctx context.Context, id int64) error
}
