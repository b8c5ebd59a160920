// Package doctor checks that Hearth's three stores agree: the database
// schema is the one the binary expects, every project's repository is on
// disk and sound, the branches the database relies on exist, and the blob
// files the database names are there. Each problem comes with the fix to
// apply; Run with Repair applies the fixes that lose nothing:
//
//   - a missing repository is created empty, so that the project works
//     again (its history is lost unless a backup is restored over it);
//   - a missing source or target branch of an open merge request is
//     recreated at the commit the merge request recorded, when the
//     repository still has it (through a compare-and-swap on "absent", so
//     a branch pushed meanwhile is never overwritten);
//   - an artifact record whose file is gone is deleted, so that the API
//     stops offering a download that fails.
//
// Everything else (a corrupt repository, a missing default branch, a
// pending migration, a missing archived trace) is reported with the fix
// an operator applies. The module has no routes: `hearth doctor` runs it.
package doctor

import (
	"go.uber.org/fx"
	"go.uber.org/zap"
)

// Module provides *Service. Its dependencies (the stores, the git backend
// and its ports.RepoChecker, the BlobStore, ports.SchemaInspector and
// ports.BlobReferences) come from the app (app.Doctor), which starts no
// other module beside it.
var Module = fx.Module("doctor",
	fx.Provide(NewService),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("doctor") }),
)
