package ports

import (
	"context"
	"io"
)

// DatabaseBackup reads the whole database as one consistent snapshot and
// writes it back, in a form that does not depend on the driver: a backup
// taken on SQLite restores on Postgres and the reverse. The storage
// adapter implements it (it knows its tables, dialects and migrations).
type DatabaseBackup interface {
	// Export opens one read-only snapshot of the database (every table
	// read in it sees the same instant) and calls fn with it; the snapshot
	// ends when fn returns.
	Export(ctx context.Context, fn func(DatabaseSnapshot) error) error
	// Empty reports whether the database holds no rows (migration
	// bookkeeping aside); a database without tables is empty.
	Empty(ctx context.Context) (bool, error)
	// Import applies the schema up to in.Schema, writes every table of in
	// in one transaction (after deleting what the tables hold), restores
	// the id sequences, then applies the migrations the backup predates.
	// A backup whose schema this build does not know is core.ErrInvalid.
	Import(ctx context.Context, in DatabaseImport) error
}

// DatabaseSnapshot is a database seen at one instant.
type DatabaseSnapshot interface {
	// Schema names the applied migrations, oldest first.
	Schema() []string
	// Tables names every table holding data, in a stable order.
	Tables() []string
	// WriteTable writes the rows of table to w in the adapter's neutral
	// format (JSON lines) and returns how many it wrote.
	WriteTable(ctx context.Context, table string, w io.Writer) (int64, error)
	// Sequences is, per table with a generated id, the last id handed out.
	Sequences(ctx context.Context) (map[string]int64, error)
	// Repositories names every repository the snapshot refers to (the
	// names RepoBackend takes).
	Repositories(ctx context.Context) ([]string, error)
	// BlobKeys is every BlobStore key the snapshot may refer to; some may
	// never have been written (a trace not archived yet).
	BlobKeys(ctx context.Context) ([]string, error)
}

// DatabaseImport is what Import writes.
type DatabaseImport struct {
	// Schema names the migrations the backup was taken at.
	Schema []string
	// Tables are the tables to fill, each read through Open.
	Tables []string
	// Open returns the rows of table as WriteTable wrote them.
	Open func(table string) (io.ReadCloser, error)
	// Sequences as DatabaseSnapshot.Sequences returned them.
	Sequences map[string]int64
}

// RepoBundler writes and reads whole repositories as git bundles (v2: a
// header of refs, then a packfile), the same format from either git
// backend, so a bundle from one restores with the other.
type RepoBundler interface {
	// Bundle writes every ref and the objects they reach to w. A
	// repository without refs writes nothing and returns empty = true.
	// A missing repository is core.ErrNotFound.
	Bundle(ctx context.Context, repo string, w io.Writer) (empty bool, err error)
	// Unbundle creates repo with HEAD naming defaultBranch and fills it
	// with the refs and objects of the bundle r yields (nil r: leave it
	// empty). core.ErrConflict when repo exists; a malformed bundle is
	// core.ErrInvalid.
	Unbundle(ctx context.Context, repo, defaultBranch string, r io.Reader) error
}
