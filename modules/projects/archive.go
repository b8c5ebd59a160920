package projects

import (
	"context"

	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// SetArchived archives or unarchives a project (owners and
// administrators); repeating it changes nothing.
func (s *Service) SetArchived(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, archived bool) (*domain.Project, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if err := t.Require(access.ArchiveProject); err != nil {
		return nil, err
	}
	proj := t.Project
	if proj.Archived == archived {
		return proj, nil
	}
	var out *domain.Project
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		var err error
		out, err = s.p.Projects.Update(ctx, proj.ID, func(p *domain.Project) error {
			p.Archived = archived
			return nil
		})
		return projectWriteErr(err, "archive project")
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
