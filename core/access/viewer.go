package access

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core/domain"
)

// IssueViewer is which confidential issues the caller may see across
// projects, in a form stores apply in the query itself.
func (p *Policy) IssueViewer(ctx context.Context, caller *domain.Caller) (domain.IssueViewer, error) {
	scope, err := p.ProjectScopeAt(ctx, caller, domain.Reporter)
	if err != nil {
		return domain.IssueViewer{}, fmt.Errorf("issue viewer: %w", err)
	}
	return ViewerOf(caller, scope), nil
}

// ViewerOf derives the confidential-issue viewer from the caller's
// reporter scope (ProjectScopeAt with domain.Reporter), for callers that
// need that scope anyway: reporters see a project's confidential issues,
// everyone sees their own.
func ViewerOf(caller *domain.Caller, reporterScope domain.ReadScope) domain.IssueViewer {
	u := user(caller)
	if u == nil {
		return domain.IssueViewer{}
	}
	if u.Admin || reporterScope.All {
		return domain.IssueViewer{All: true, UserID: u.ID}
	}
	return domain.IssueViewer{UserID: u.ID, ProjectIDs: reporterScope.ProjectIDs, NamespaceIDs: reporterScope.NamespaceIDs}
}
