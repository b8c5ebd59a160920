package app

import (
	"context"
	"fmt"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/adapters/storage/bunstore"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/ports"
	"github.com/hearth-forge/hearth/modules/doctor"
)

// Doctor adds the doctor module and the ports it checks through to Core.
// `hearth doctor` starts Core with it and no other module, so that no
// module's start-up work (merge repairs, fork resumption, webhook
// deliveries, the stale job sweep) changes what it looks at.
func Doctor() fx.Option {
	return fx.Options(doctorPorts(), doctor.Module)
}

// doctorPorts provides what the doctor module checks through: the
// storage adapter's schema and blob-reference queries, and the git
// backend's repository checker.
func doctorPorts() fx.Option {
	return fx.Provide(
		func(s *bunstore.Store) ports.SchemaInspector { return s },
		func(s *bunstore.Store) ports.BlobReferences { return s },
		func(b ports.RepoBackend) (ports.RepoChecker, error) {
			c, ok := b.(ports.RepoChecker)
			if !ok {
				return nil, fmt.Errorf("git backend %T cannot check repositories", b)
			}
			return c, nil
		},
	)
}

// SchemaStatus opens the configured database and reports its migrations
// without applying any (starting the app applies them).
func SchemaStatus(ctx context.Context, cfg config.Config) (ports.SchemaStatus, error) {
	store, err := openStore(ctx, cfg)
	if err != nil {
		return ports.SchemaStatus{}, err
	}
	defer store.DB().Close()
	return store.SchemaStatus(ctx)
}
