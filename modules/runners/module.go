// Package runners is the runner side of CI: the protocol gitlab-runner
// speaks (registration, verify, unregister, job request, job updates,
// trace appends, artifact upload and download, see
// shared/RUNNER-PROTOCOL.md), GitLab 9.x's runners API (/runners,
// /projects/:id/runners, the registration token reset), and the periodic
// sweep that fails stuck jobs and deletes expired artifacts.
//
// Job status changes go through the domain state machine inside a
// transaction that publishes domain.JobEvent; the ci module recomputes
// the pipeline on it.
package runners

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/httpx"
)

// Module provides *Service, the runner routes and the sweeper, which runs
// while the app runs.
var Module = fx.Module("runners",
	fx.Provide(NewService, httpx.AsRoutes(routes)),
	fx.Invoke(startSweeper),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("runners") }),
)
