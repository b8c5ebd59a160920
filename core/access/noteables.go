package access

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core/domain"
)

// The rules below are GitLab 9.x's read_issue, read_merge_request and
// read_project_snippet, shared by every module that shows an issue, a
// merge request or a snippet, or notes on them. rights are the caller's
// rights on the project holding the thing.

// CanReadIssues tells whether the caller may see the project's issue
// tracker at all (issues_enabled; 404 otherwise).
func CanReadIssues(p *domain.Project, rights Rights) bool {
	return rights.Read && p.IssuesEnabled
}

// CanReadIssue adds confidentiality: a confidential issue shows only to
// reporters and above, its author and its assignee (and admins).
func CanReadIssue(caller *domain.Caller, p *domain.Project, rights Rights, is *domain.Issue) bool {
	if !CanReadIssues(p, rights) {
		return false
	}
	if !is.Confidential || rights.AtLeast(domain.Reporter) {
		return true
	}
	uid := caller.UserID()
	return uid != 0 && (is.AuthorID == uid || (is.AssigneeID != nil && *is.AssigneeID == uid))
}

// CanReadMergeRequests is read_merge_request: code must be downloadable
// (reporters and up on private projects, any reader otherwise) and the
// feature on.
func CanReadMergeRequests(p *domain.Project, rights Rights) bool {
	return rights.Read && p.MergeRequestsEnabled && (rights.AtLeast(domain.Reporter) || p.Visibility != domain.Private)
}

// CanReadSnippets tells whether the project's snippets are shown at all.
func CanReadSnippets(p *domain.Project, rights Rights) bool {
	return rights.Read && p.SnippetsEnabled
}

// CanReadSnippet applies a snippet's own visibility within a readable
// project: public to every reader of the project, internal to signed-in
// users who are not external, private to the project's members and the
// author.
func CanReadSnippet(caller *domain.Caller, p *domain.Project, rights Rights, s *domain.Snippet) bool {
	if !CanReadSnippets(p, rights) {
		return false
	}
	if rights.Admin || rights.AtLeast(domain.Guest) || (caller.UserID() != 0 && s.AuthorID == caller.UserID()) {
		return true
	}
	u := user(caller)
	switch s.Visibility {
	case domain.Public:
		return true
	case domain.Internal:
		return u != nil && !u.External
	}
	return false
}

// SnippetVisibilities are the visibilities of a project's snippets the
// caller may list besides their own (SnippetFilter).
func SnippetVisibilities(caller *domain.Caller, rights Rights) []domain.Visibility {
	if rights.Admin || rights.AtLeast(domain.Guest) {
		return []domain.Visibility{domain.Public, domain.Internal, domain.Private}
	}
	if u := user(caller); u != nil && !u.External {
		return []domain.Visibility{domain.Public, domain.Internal}
	}
	return []domain.Visibility{domain.Public}
}

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
