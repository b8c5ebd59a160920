package app

import (
	"context"
	"errors"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/adapters/storage/bunstore"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/modules/backup"
)

// OpenBackup builds the backup service over the configured storage, git
// backend and blob store without starting anything: no migration runs (a
// restore brings the schema to the backup's version itself), no module
// starts its background work, nothing listens. A backup taken this way
// runs beside a live server. close releases the database.
func OpenBackup(cfg config.Config, extra ...fx.Option) (svc *backup.Service, close func() error, err error) {
	var store *bunstore.Store
	a := fx.New(append([]fx.Option{Core(cfg), backup.Module, fx.Populate(&svc, &store)}, extra...)...)
	if err := a.Err(); err != nil {
		return nil, nil, err
	}
	return svc, func() error {
		// Stop runs the stop hooks of what started (nothing did); the
		// database is closed here.
		return errors.Join(a.Stop(context.Background()), store.DB().Close())
	}, nil
}
