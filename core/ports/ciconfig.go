package ports

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

// PipelineConfigParser reads CI configuration files (.gitlab-ci.yml).
type PipelineConfigParser interface {
	// Parse reads src. include returns a local file the configuration
	// includes (core.ErrNotFound when it does not exist). An invalid
	// configuration, one over the size, depth or alias limits included,
	// is core.ErrInvalid with GitLab's message, which becomes the
	// pipeline's yaml_errors.
	Parse(ctx context.Context, src []byte, include func(ctx context.Context, path string) ([]byte, error)) (*domain.PipelineConfig, error)
}
