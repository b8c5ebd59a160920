package projects

import (
	"context"

	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// Project finds the project ref names (numeric ID or full path) as the
// caller sees it; missing and unreadable projects are the same 404. The
// target carries the namespaces the access check read, for rendering.
func (s *Service) Project(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath) (access.Target, error) {
	return s.p.Policy.Resolve(ctx, caller, ref, access.ReadProject)
}
