// Package backup makes and restores whole-server backups: one archive with
// a driver-neutral export of every table (read in one snapshot), every
// repository as a git bundle taken after that snapshot (git is never
// behind the database), the blobs the rows refer to, and a manifest with
// the schema version, counts and checksums. A backup from SQLite restores
// on Postgres and the reverse. It has no HTTP routes: the CLI (`hearth
// backup create|verify|restore`) drives it.
//
// # Archive layout
//
// A POSIX tar file, parts in this order:
//
//	db/<table>.jsonl.gz          one per table (gzip of the storage
//	                             adapter's JSON lines: a header line, then
//	                             one JSON array per row)
//	db/sequences.json            last id handed out per table
//	repositories/<repo>.bundle   one per repository with refs ("git bundle
//	                             create --all" format, v2)
//	blobs/<key>                  artifacts and archived traces, as stored
//	manifest.json                see Manifest
//	manifest.json.sha256         SHA-256 of manifest.json
//
// The manifest gives every part's size and SHA-256 and also the byte span
// the part occupies in the tar (header, data and padding) with its own
// SHA-256, so one flipped byte anywhere before the manifest is found and
// named, padding included.
package backup

import "go.uber.org/fx"

// Module provides *Service. Its ports (DatabaseBackup, RepoBundler,
// RepoStorage, RepoReader, BlobStore) come from the app.
var Module = fx.Module("backup", fx.Provide(NewService))
