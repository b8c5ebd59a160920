// Package meta serves what clients and orchestrators ask about the server
// itself: GET /api/v4/version and the /-/health, /-/readiness and /-/liveness probes.
package meta

import (
	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
)

// Version is what GET /version reports: GitLab's API level with Hearth's suffix.
const Version = "9.5.10-hearth"

// Build carries the source revision; the app sets it from build info.
type Build struct{ Revision string }

// Module registers the meta routes. It has no service: the answers are
// the build's revision and whether the database answers (ports.Pinger).
var Module = fx.Module("meta",
	fx.Provide(
		httpx.AsRoutes(apiRoutes),
		httpx.AsRoutes(probeRoutes),
	),
)

type params struct {
	fx.In
	Build  Build        `optional:"true"`
	Pinger ports.Pinger `optional:"true"`
}
