package access

import (
	"sort"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// Ability names one thing a caller may do, as GitLab's ProjectPolicy,
// IssuePolicy, MergeRequestPolicy, SnippetPolicy and NotePolicy name them.
// Modules ask Target.Can (or Target.Require); none compares access levels
// itself.
type Ability string

// Project abilities.
const (
	ReadProject Ability = "read_project"
	// DownloadCode: reporters and up, and every reader of an internal or
	// public project (guests of private projects read no code).
	DownloadCode Ability = "download_code"
	ForkProject  Ability = "fork_project"
	// PushCode: developers and up, on a project that is not archived.
	PushCode Ability = "push_code"
	// PushToProtectedBranches: masters and up, not archived.
	PushToProtectedBranches Ability = "push_code_to_protected_branches"
	// AdminProject: masters change settings and protected branches.
	AdminProject Ability = "admin_project"
	// AdminProjectMember: masters add, change and remove members.
	AdminProjectMember Ability = "admin_project_member"
	// RenameProject and ChangeVisibilityLevel are owners' settings.
	RenameProject         Ability = "rename_project"
	ChangeVisibilityLevel Ability = "change_visibility_level"
	ArchiveProject        Ability = "archive_project"
	RemoveProject         Ability = "remove_project"
	// AdminHooks: masters manage the project's webhooks (GitLab 9.x's
	// hooks API asks authorize_admin_project; later GitLab names it
	// admin_web_hook). Archived projects keep theirs manageable.
	AdminHooks Ability = "admin_web_hook"
)

// Issue tracker abilities (issues, milestones, labels).
const (
	// ReadIssue on the project is whether the tracker shows at all
	// (issues_enabled); on an issue it adds confidentiality: reporters and
	// up, the author and the assignee.
	ReadIssue Ability = "read_issue"
	// CreateIssue: guests and up, and any signed-in user who is not
	// external in public and internal projects.
	CreateIssue Ability = "create_issue"
	// UpdateIssue on an issue: reporters and up, its author, its assignee.
	UpdateIssue Ability = "update_issue"
	// AdminIssue: reporters and up set assignees, milestones, labels and
	// manage milestones and labels.
	AdminIssue Ability = "admin_issue"
	// DestroyIssue and SetIssueCreatedAt are owners'.
	DestroyIssue      Ability = "destroy_issue"
	SetIssueCreatedAt Ability = "set_issue_created_at"
)

// Merge request abilities.
const (
	// ReadMergeRequest: the feature on and the code downloadable.
	ReadMergeRequest   Ability = "read_merge_request"
	CreateMergeRequest Ability = "create_merge_request"
	// UpdateMergeRequest on a merge request: developers and its author.
	UpdateMergeRequest  Ability = "update_merge_request"
	DestroyMergeRequest Ability = "destroy_merge_request"
	// AdminMergeRequest: developers and up (GitLab's admin_merge_request;
	// time tracking asks for it).
	AdminMergeRequest Ability = "admin_merge_request"
)

// Snippet and note abilities.
const (
	// ReadSnippet on the project is whether its snippets show at all; on a
	// snippet it applies the snippet's own visibility.
	ReadSnippet   Ability = "read_project_snippet"
	CreateSnippet Ability = "create_project_snippet"
	// AdminSnippet on a snippet: masters and its author.
	AdminSnippet Ability = "admin_project_snippet"
	// CreateNote: any signed-in reader of the noteable, not archived.
	CreateNote Ability = "create_note"
	// AdminNote on a note: masters and its author.
	AdminNote Ability = "admin_note"
)

// CI abilities (GitLab's build, pipeline and commit status policies).
// None holds when the project's jobs are disabled.
const (
	// ReadPipeline and ReadCommitStatus: whoever downloads the code, and
	// guests when the project's jobs are public.
	ReadPipeline     Ability = "read_pipeline"
	ReadCommitStatus Ability = "read_commit_status"
	// ReadJob (read_build) covers jobs, traces and artifacts: reporters
	// and up, and every reader of the project when its jobs are public.
	ReadJob Ability = "read_build"
	// UpdateJob: developers cancel, retry, play, erase and keep jobs, and
	// create, retry and cancel pipelines (create_pipeline, update_build).
	UpdateJob      Ability = "update_build"
	CreatePipeline Ability = "create_pipeline"
	UpdatePipeline Ability = "update_pipeline"
	// CreateCommitStatus: developers post commit statuses.
	CreateCommitStatus Ability = "create_commit_status"
	// DestroyPipeline is owners' (GitLab's destroy_pipeline).
	DestroyPipeline Ability = "destroy_pipeline"
	// AdminBuild: masters manage CI variables, the project's runners and
	// its runner registration token.
	AdminBuild Ability = "admin_build"
)

// Object is a thing inside the target's project that an ability is asked
// about. Build one with OnIssue, OnMergeRequest, OnSnippet or OnNote.
type Object struct {
	kind         objectKind
	authorID     int64
	assigneeID   int64 // 0: none
	confidential bool
	visibility   domain.Visibility
}

type objectKind uint8

const (
	issueObject objectKind = iota + 1
	mergeRequestObject
	snippetObject
	noteObject
)

// OnIssue is the issue as an ability's object.
func OnIssue(is *domain.Issue) Object {
	return Object{kind: issueObject, authorID: is.AuthorID, assigneeID: deref(is.AssigneeID), confidential: is.Confidential}
}

// OnMergeRequest is the merge request as an ability's object.
func OnMergeRequest(m *domain.MergeRequest) Object {
	return Object{kind: mergeRequestObject, authorID: m.AuthorID, assigneeID: deref(m.AssigneeID)}
}

// OnSnippet is the snippet as an ability's object.
func OnSnippet(s *domain.Snippet) Object {
	return Object{kind: snippetObject, authorID: s.AuthorID, visibility: s.Visibility}
}

// OnNote is the note as an ability's object.
func OnNote(n *domain.Note) Object { return Object{kind: noteObject, authorID: n.AuthorID} }

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// rule decides an ability for a target; o is nil when the question is
// about the project itself.
type rule struct {
	on     objectKind // the object kind the ability may be asked about (0: none)
	decide func(t Target, o *Object) bool
}

// rules is the one table of who may do what. Every rule starts from the
// caller's Rights on the project (membership, groups, shares, admin).
var rules = map[Ability]rule{
	ReadProject:  {decide: func(t Target, _ *Object) bool { return t.Rights.Read }},
	DownloadCode: {decide: func(t Target, _ *Object) bool { return t.downloadCode() }},
	ForkProject:  {decide: func(t Target, _ *Object) bool { return t.signedIn() && t.downloadCode() }},
	PushCode: {decide: func(t Target, _ *Object) bool {
		return t.writable() && t.Rights.AtLeast(domain.Developer)
	}},
	PushToProtectedBranches: {decide: func(t Target, _ *Object) bool {
		return t.writable() && t.Rights.AtLeast(domain.Master)
	}},
	AdminProject:          {decide: func(t Target, _ *Object) bool { return t.at(domain.Master) }},
	AdminProjectMember:    {decide: func(t Target, _ *Object) bool { return t.at(domain.Master) }},
	AdminHooks:            {decide: func(t Target, _ *Object) bool { return t.at(domain.Master) }},
	RenameProject:         {decide: func(t Target, _ *Object) bool { return t.at(domain.Owner) }},
	ChangeVisibilityLevel: {decide: func(t Target, _ *Object) bool { return t.at(domain.Owner) }},
	ArchiveProject:        {decide: func(t Target, _ *Object) bool { return t.at(domain.Owner) }},
	RemoveProject:         {decide: func(t Target, _ *Object) bool { return t.at(domain.Owner) }},

	ReadIssue: {on: issueObject, decide: func(t Target, o *Object) bool {
		if !t.Rights.Read || !t.Project.IssuesEnabled {
			return false
		}
		return o == nil || !o.confidential || t.Rights.AtLeast(domain.Reporter) || t.involved(o)
	}},
	CreateIssue: {decide: func(t Target, _ *Object) bool {
		if !t.writable() || !t.Rights.Read || !t.Project.IssuesEnabled {
			return false
		}
		return t.Rights.AtLeast(domain.Guest) || (t.Project.Visibility != domain.Private && !t.Caller.User.External)
	}},
	UpdateIssue: {on: issueObject, decide: func(t Target, o *Object) bool {
		if !t.writable() || !t.Rights.Read {
			return false
		}
		return t.Rights.AtLeast(domain.Reporter) || (o != nil && t.involved(o))
	}},
	AdminIssue:        {decide: func(t Target, _ *Object) bool { return t.writable() && t.Rights.AtLeast(domain.Reporter) }},
	DestroyIssue:      {decide: func(t Target, _ *Object) bool { return t.at(domain.Owner) }},
	SetIssueCreatedAt: {decide: func(t Target, _ *Object) bool { return t.at(domain.Owner) }},

	ReadMergeRequest: {decide: func(t Target, _ *Object) bool {
		return t.Project.MergeRequestsEnabled && t.downloadCode()
	}},
	CreateMergeRequest: {decide: func(t Target, _ *Object) bool {
		return t.writable() && t.Rights.AtLeast(domain.Developer)
	}},
	UpdateMergeRequest: {on: mergeRequestObject, decide: func(t Target, o *Object) bool {
		if !t.writable() {
			return false
		}
		return t.Rights.AtLeast(domain.Developer) || (o != nil && o.authorID == t.Caller.UserID())
	}},
	DestroyMergeRequest: {decide: func(t Target, _ *Object) bool { return t.at(domain.Owner) }},
	AdminMergeRequest: {decide: func(t Target, _ *Object) bool {
		return t.writable() && t.Rights.AtLeast(domain.Developer)
	}},

	ReadSnippet: {on: snippetObject, decide: func(t Target, o *Object) bool {
		if !t.Rights.Read || !t.Project.SnippetsEnabled {
			return false
		}
		if o == nil || t.Rights.AtLeast(domain.Guest) || t.authored(o) {
			return true
		}
		return visibleBy(o.visibility, user(t.Caller))
	}},
	CreateSnippet: {decide: func(t Target, _ *Object) bool { return t.at(domain.Reporter) }},
	AdminSnippet: {on: snippetObject, decide: func(t Target, o *Object) bool {
		return t.at(domain.Master) || (o != nil && t.authored(o))
	}},
	CreateNote: {decide: func(t Target, _ *Object) bool { return t.writable() && t.Rights.Read }},

	ReadPipeline:     {decide: func(t Target, _ *Object) bool { return t.readPipelines() }},
	ReadCommitStatus: {decide: func(t Target, _ *Object) bool { return t.readPipelines() }},
	ReadJob: {decide: func(t Target, _ *Object) bool {
		return t.Project.JobsEnabled && t.Rights.Read && (t.Rights.AtLeast(domain.Reporter) || t.Project.PublicJobs)
	}},
	UpdateJob:          {decide: func(t Target, _ *Object) bool { return t.ciWrite(domain.Developer) }},
	CreatePipeline:     {decide: func(t Target, _ *Object) bool { return t.ciWrite(domain.Developer) }},
	UpdatePipeline:     {decide: func(t Target, _ *Object) bool { return t.ciWrite(domain.Developer) }},
	CreateCommitStatus: {decide: func(t Target, _ *Object) bool { return t.ciWrite(domain.Developer) }},
	DestroyPipeline:    {decide: func(t Target, _ *Object) bool { return t.Project.JobsEnabled && t.at(domain.Owner) }},
	AdminBuild:         {decide: func(t Target, _ *Object) bool { return t.Project.JobsEnabled && t.at(domain.Master) }},
	AdminNote: {on: noteObject, decide: func(t Target, o *Object) bool {
		return t.at(domain.Master) || (o != nil && t.authored(o))
	}},
}

// jobReadable are the abilities a CI job token may use: reads only.
var jobReadable = map[Ability]bool{
	ReadProject: true, DownloadCode: true, ReadIssue: true, ReadMergeRequest: true,
	ReadSnippet: true, ReadPipeline: true, ReadCommitStatus: true, ReadJob: true,
}

// Can reports whether the target's caller may do a to the project, or,
// given an object, to that issue, merge request, snippet or note of the
// project. An unknown ability, or an object of the wrong kind, is no.
func (t Target) Can(a Ability, on ...Object) bool {
	r, ok := rules[a]
	if !ok || t.Project == nil {
		return false
	}
	if t.Caller != nil && t.Caller.Job != nil && !jobReadable[a] {
		return false
	}
	if dk := t.deployKey(); dk != nil {
		return deployKeyCan(t, dk, a)
	}
	if len(on) == 0 {
		return r.decide(t, nil)
	}
	if on[0].kind != r.on {
		return false
	}
	return r.decide(t, &on[0])
}

// Require is Can as an error: nil when allowed, 401 for an anonymous
// caller, 403 otherwise.
func (t Target) Require(a Ability, on ...Object) error {
	if t.Can(a, on...) {
		return nil
	}
	if t.Caller.Anonymous() {
		return core.Unauthenticated()
	}
	return core.Forbidden("")
}

// Abilities lists every ability the table knows, sorted (for tests and
// documentation).
func Abilities() []Ability {
	out := make([]Ability, 0, len(rules))
	for a := range rules {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// deployKey is the deploy key acting, when no user does.
func (t Target) deployKey() *domain.DeployKeyAccess {
	if t.Caller == nil || t.Caller.User != nil {
		return nil
	}
	return t.Caller.DeployKey
}

// deployKeyCan is all a deploy key may do, on the projects it is enabled
// for: fetch the repository, and push to it when the key may push and
// the project is not archived (GitLab's DeployKey#can_push_to?). Rules
// that need a member's level, such as pushing to a protected branch,
// find none.
func deployKeyCan(t Target, dk *domain.DeployKeyAccess, a Ability) bool {
	if !dk.EnabledFor(t.Project.ID) {
		return false
	}
	switch a {
	case ReadProject, DownloadCode:
		return true
	case PushCode:
		return dk.Key.CanPush && !t.Project.Archived
	}
	return false
}

// signedIn: a user, not blocked, acts.
func (t Target) signedIn() bool { return user(t.Caller) != nil }

// writable: a signed-in caller on a project that is not archived.
func (t Target) writable() bool { return t.signedIn() && !t.Project.Archived }

// at: a signed-in caller holding level (admins hold every level).
func (t Target) at(level domain.AccessLevel) bool { return t.signedIn() && t.Rights.AtLeast(level) }

func (t Target) downloadCode() bool {
	return t.Rights.Read && (t.Rights.AtLeast(domain.Reporter) || t.Project.Visibility != domain.Private)
}

func (t Target) readPipelines() bool {
	return t.Project.JobsEnabled && (t.downloadCode() || (t.Project.PublicJobs && t.Rights.Read))
}

// ciWrite: level and up, jobs enabled, project not archived.
func (t Target) ciWrite(level domain.AccessLevel) bool {
	return t.Project.JobsEnabled && t.writable() && t.Rights.AtLeast(level)
}

func (t Target) authored(o *Object) bool {
	uid := t.Caller.UserID()
	return uid != 0 && o.authorID == uid
}

func (t Target) involved(o *Object) bool {
	uid := t.Caller.UserID()
	return uid != 0 && (o.authorID == uid || o.assigneeID == uid)
}
