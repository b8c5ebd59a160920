package ports

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

// The ports below serve `hearth doctor`, which checks that the database,
// the repositories and the blob store agree with each other.

// SchemaStatus compares the migrations a binary knows with those applied
// to its database.
type SchemaStatus struct {
	// Known is how many migrations the binary knows.
	Known int
	// Pending are migrations the binary knows that are not applied.
	Pending []string
	// Unknown are applied migrations the binary does not know: a newer
	// binary migrated the database.
	Unknown []string
}

// SchemaInspector reads the state of the database schema without changing
// it (the storage adapter implements it).
type SchemaInspector interface {
	// SchemaStatus reports which migrations are pending and which applied
	// ones are unknown; a database never migrated has every migration
	// pending.
	SchemaStatus(ctx context.Context) (SchemaStatus, error)
}

// RepoChecker verifies a repository's objects (git backends implement it).
type RepoChecker interface {
	// Fsck checks that every object reachable from the repository's refs
	// and HEAD is present and intact, and returns one line per problem
	// found (none: the repository is sound). A missing repository is
	// core.ErrNotFound; a check that ctx cut short returns ctx's error.
	Fsck(ctx context.Context, repo string) ([]string, error)
}

// BlobReferences lists, in pages ordered by ID, the records that name
// files in the BlobStore (the storage adapter implements it).
type BlobReferences interface {
	// ArtifactsAfter lists artifact records with ID > afterID, at most
	// limit.
	ArtifactsAfter(ctx context.Context, afterID int64, limit int) ([]domain.Artifact, error)
	// ArchivedTracesAfter lists jobs with ID > afterID whose trace was
	// archived to the BlobStore at domain.TraceKey: finished, not erased,
	// with a trace (TraceSize > 0) no longer kept in the database. At most
	// limit.
	ArchivedTracesAfter(ctx context.Context, afterID int64, limit int) ([]domain.Job, error)
}
