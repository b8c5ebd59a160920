package deploykeys

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core/domain"
)

// subscribe disables a destroyed project's keys in its transaction, before
// its row goes: GitLab destroys a deploy key with the last project it is
// enabled for, also when that project is deleted (the rows of
// deploy_keys_projects would go with the project anyway, leaving the key).
func (s *Service) subscribe() {
	s.p.Bus.SubscribeTx(domain.ProjectDestroyed{}.EventName(), func(ctx context.Context, ev domain.BusEvent) error {
		e, ok := ev.(domain.ProjectDestroyed)
		if !ok {
			return nil
		}
		return s.disableAll(ctx, e.Project.ID)
	})
}

// disableAll disables every key of the project, deleting the orphans.
func (s *Service) disableAll(ctx context.Context, projectID int64) error {
	for {
		// Each pass disables what it lists, so the first page is always
		// the next one.
		keys, _, err := s.p.DeployKeys.ListByProject(ctx, projectID, domain.Page{Page: 1, PerPage: 100})
		if err != nil {
			return fmt.Errorf("deploy keys of destroyed project %d: %w", projectID, err)
		}
		if len(keys) == 0 {
			return nil
		}
		for _, k := range keys {
			if err := s.p.DeployKeys.Disable(ctx, projectID, k.ID); err != nil {
				return fmt.Errorf("disable deploy key %d of destroyed project %d: %w", k.ID, projectID, err)
			}
		}
	}
}
