// Package access is Hearth's one permission layer. Every module asks it;
// none compares access levels itself.
//
// Policy computes a caller's Rights on a project or group from direct
// membership, membership of the group and its ancestors, shares with
// groups (capped at the share's level), ownership of a personal namespace,
// visibility and administrator status.
//
// A use case starts from a Target: Policy.Resolve turns (caller, project
// reference) into the project as the caller sees it, or into GitLab's 404
// "Project Not Found" when it is missing, unreadable, or when the feature
// the use case needs is off; Policy.ResolveSignedIn answers 401 to an
// anonymous caller first. Then it asks for named abilities, as GitLab's
// ProjectPolicy, IssuePolicy, MergeRequestPolicy, SnippetPolicy and
// NotePolicy name them:
//
//	t.Can(access.PushCode)
//	t.Require(access.UpdateIssue, access.OnIssue(is)) // nil, 401 or 403
//
// The rules live in one table (abilities.go), tested cell by cell in
// abilities_test.go and over HTTP by app/authz_test.go. Groups have
// GroupTarget (Policy.ResolveGroup) with the group abilities.
//
// Lists never filter after loading: ProjectScope, GroupScope and
// IssueViewer describe what a caller may see in a form the stores apply in
// the query itself, so pages and X-Total count only what may be seen.
package access
