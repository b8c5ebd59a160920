package access_test

import (
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// The roles a table row names, in the order of the "want" strings below:
// anonymous, signed-in stranger, external stranger, guest, reporter,
// developer, master, owner, admin.
var roles = []string{"anon", "user", "ext", "guest", "rep", "dev", "master", "owner", "admin"}

const selfID = 7 // the caller's user ID when signed in

func caller(role string) *domain.Caller {
	switch role {
	case "anon":
		return nil
	case "ext":
		return &domain.Caller{User: &domain.User{ID: selfID, State: domain.UserActive, External: true}}
	case "admin":
		return &domain.Caller{User: &domain.User{ID: selfID, State: domain.UserActive, Admin: true}}
	}
	return &domain.Caller{User: &domain.User{ID: selfID, State: domain.UserActive}}
}

// target builds the Target the policy would for role on a project of vis
// (the policy's own Rights computation is tested in policy_test.go).
func target(role string, p *domain.Project) access.Target {
	c := caller(role)
	r := access.Rights{Admin: role == "admin"}
	r.Level = map[string]domain.AccessLevel{"guest": domain.Guest, "rep": domain.Reporter, "dev": domain.Developer,
		"master": domain.Master, "owner": domain.Owner}[role]
	u := c.UserID() != 0
	ext := role == "ext"
	r.Read = r.Admin || r.Level > 0 || p.Visibility == domain.Public || (p.Visibility == domain.Internal && u && !ext)
	return access.Target{Caller: c, Project: p, Rights: r}
}

func project(vis domain.Visibility, tweak ...func(*domain.Project)) *domain.Project {
	p := &domain.Project{ID: 1, Visibility: vis, IssuesEnabled: true, MergeRequestsEnabled: true, SnippetsEnabled: true}
	for _, f := range tweak {
		f(p)
	}
	return p
}

func archived(p *domain.Project) { p.Archived = true }

// jobs turns the project's CI on with public jobs (new projects' defaults).
func jobs(p *domain.Project) { p.JobsEnabled, p.PublicJobs = true, true }

func notPublicJobs(p *domain.Project) { p.PublicJobs = false }

// TestAbilityTable pins who may do what: each want string holds one
// character per role ("1" allowed, "." refused).
func TestAbilityTable(t *testing.T) {
	other := int64(99)
	self := int64(selfID)
	confidential := &domain.Issue{AuthorID: other, Confidential: true}
	ownConfidential := &domain.Issue{AuthorID: other, AssigneeID: &self, Confidential: true}
	othersIssue := &domain.Issue{AuthorID: other}
	ownMR := &domain.MergeRequest{AuthorID: selfID}
	othersMR := &domain.MergeRequest{AuthorID: other}
	privSnippet := &domain.Snippet{AuthorID: other, Visibility: domain.Private}
	intSnippet := &domain.Snippet{AuthorID: other, Visibility: domain.Internal}
	ownNote := &domain.Note{AuthorID: selfID}
	othersNote := &domain.Note{AuthorID: other}

	cases := []struct {
		name    string
		project *domain.Project
		ability access.Ability
		on      []access.Object
		want    string // anon user ext guest rep dev master owner admin
	}{
		{"read private", project(domain.Private), access.ReadProject, nil, "...111111"},
		{"read internal", project(domain.Internal), access.ReadProject, nil, ".1.111111"},
		{"read public", project(domain.Public), access.ReadProject, nil, "111111111"},
		{"download private", project(domain.Private), access.DownloadCode, nil, "....11111"},
		{"download public", project(domain.Public), access.DownloadCode, nil, "111111111"},
		{"fork public", project(domain.Public), access.ForkProject, nil, ".11111111"},
		{"fork private", project(domain.Private), access.ForkProject, nil, "....11111"},
		{"push", project(domain.Public), access.PushCode, nil, ".....1111"},
		{"push archived", project(domain.Public, archived), access.PushCode, nil, "........."},
		{"push protected", project(domain.Private), access.PushToProtectedBranches, nil, "......111"},
		{"admin project", project(domain.Public, archived), access.AdminProject, nil, "......111"},
		{"admin hooks", project(domain.Private, archived), access.AdminHooks, nil, "......111"},
		{"admin members", project(domain.Private), access.AdminProjectMember, nil, "......111"},
		{"rename", project(domain.Private), access.RenameProject, nil, ".......11"},
		{"visibility", project(domain.Private), access.ChangeVisibilityLevel, nil, ".......11"},
		{"archive", project(domain.Private), access.ArchiveProject, nil, ".......11"},
		{"remove", project(domain.Private), access.RemoveProject, nil, ".......11"},

		{"tracker public", project(domain.Public), access.ReadIssue, nil, "111111111"},
		{"tracker off", project(domain.Public, func(p *domain.Project) { p.IssuesEnabled = false }), access.ReadIssue, nil, "........."},
		{"confidential", project(domain.Public), access.ReadIssue, []access.Object{access.OnIssue(confidential)}, "....11111"},
		{"confidential assignee", project(domain.Public), access.ReadIssue, []access.Object{access.OnIssue(ownConfidential)}, ".11111111"},
		{"create issue public", project(domain.Public), access.CreateIssue, nil, ".1.111111"},
		{"create issue private", project(domain.Private), access.CreateIssue, nil, "...111111"},
		{"create issue archived", project(domain.Public, archived), access.CreateIssue, nil, "........."},
		{"update other's issue", project(domain.Public), access.UpdateIssue, []access.Object{access.OnIssue(othersIssue)}, "....11111"},
		{"update assigned issue", project(domain.Public), access.UpdateIssue, []access.Object{access.OnIssue(ownConfidential)}, ".11111111"},
		{"admin issue", project(domain.Public), access.AdminIssue, nil, "....11111"},
		{"admin issue archived", project(domain.Public, archived), access.AdminIssue, nil, "........."},
		{"destroy issue", project(domain.Public), access.DestroyIssue, nil, ".......11"},
		{"issue created_at", project(domain.Public), access.SetIssueCreatedAt, nil, ".......11"},

		{"read MRs private", project(domain.Private), access.ReadMergeRequest, nil, "....11111"},
		{"read MRs internal", project(domain.Internal), access.ReadMergeRequest, nil, ".1.111111"},
		{"MRs off", project(domain.Public, func(p *domain.Project) { p.MergeRequestsEnabled = false }), access.ReadMergeRequest, nil, "........."},
		{"create MR", project(domain.Public), access.CreateMergeRequest, nil, ".....1111"},
		{"update own MR", project(domain.Public), access.UpdateMergeRequest, []access.Object{access.OnMergeRequest(ownMR)}, ".11111111"},
		{"update other's MR", project(domain.Public), access.UpdateMergeRequest, []access.Object{access.OnMergeRequest(othersMR)}, ".....1111"},
		{"update MR archived", project(domain.Public, archived), access.UpdateMergeRequest, []access.Object{access.OnMergeRequest(ownMR)}, "........."},
		{"destroy MR", project(domain.Public), access.DestroyMergeRequest, nil, ".......11"},
		{"admin MR", project(domain.Public), access.AdminMergeRequest, nil, ".....1111"},
		{"admin MR archived", project(domain.Public, archived), access.AdminMergeRequest, nil, "........."},

		{"snippets public", project(domain.Public), access.ReadSnippet, nil, "111111111"},
		{"private snippet", project(domain.Public), access.ReadSnippet, []access.Object{access.OnSnippet(privSnippet)}, "...111111"},
		{"internal snippet", project(domain.Public), access.ReadSnippet, []access.Object{access.OnSnippet(intSnippet)}, ".1.111111"},
		{"create snippet", project(domain.Public), access.CreateSnippet, nil, "....11111"},
		{"admin other's snippet", project(domain.Public), access.AdminSnippet, []access.Object{access.OnSnippet(privSnippet)}, "......111"},
		{"create note", project(domain.Public), access.CreateNote, nil, ".11111111"},
		{"create note archived", project(domain.Public, archived), access.CreateNote, nil, "........."},
		{"admin own note", project(domain.Public), access.AdminNote, []access.Object{access.OnNote(ownNote)}, ".11111111"},
		{"admin other's note", project(domain.Public), access.AdminNote, []access.Object{access.OnNote(othersNote)}, "......111"},

		{"pipelines private", project(domain.Private, jobs), access.ReadPipeline, nil, "...111111"},
		{"pipelines private, jobs not public", project(domain.Private, jobs, notPublicJobs), access.ReadPipeline, nil, "....11111"},
		{"pipelines internal", project(domain.Internal, jobs), access.ReadPipeline, nil, ".1.111111"},
		{"pipelines jobs off", project(domain.Public), access.ReadPipeline, nil, "........."},
		{"statuses public", project(domain.Public, jobs, notPublicJobs), access.ReadCommitStatus, nil, "111111111"},
		{"jobs public", project(domain.Public, jobs), access.ReadJob, nil, "111111111"},
		{"jobs public, not public jobs", project(domain.Public, jobs, notPublicJobs), access.ReadJob, nil, "....11111"},
		{"jobs private", project(domain.Private, jobs), access.ReadJob, nil, "...111111"},
		{"jobs off", project(domain.Public), access.ReadJob, nil, "........."},
		{"update job", project(domain.Public, jobs), access.UpdateJob, nil, ".....1111"},
		{"update job archived", project(domain.Public, jobs, archived), access.UpdateJob, nil, "........."},
		{"create pipeline", project(domain.Private, jobs), access.CreatePipeline, nil, ".....1111"},
		{"update pipeline", project(domain.Private, jobs), access.UpdatePipeline, nil, ".....1111"},
		{"create status", project(domain.Public, jobs), access.CreateCommitStatus, nil, ".....1111"},
		{"destroy pipeline", project(domain.Public, jobs), access.DestroyPipeline, nil, ".......11"},
		{"admin build", project(domain.Public, jobs), access.AdminBuild, nil, "......111"},
		{"admin build jobs off", project(domain.Public), access.AdminBuild, nil, "........."},

		// An object of the wrong kind is refused, whoever asks.
		{"wrong object", project(domain.Public), access.UpdateIssue, []access.Object{access.OnNote(ownNote)}, "........."},
		{"unknown ability", project(domain.Public), access.Ability("fly"), nil, "........."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got strings.Builder
			for _, role := range roles {
				if target(role, c.project).Can(c.ability, c.on...) {
					got.WriteByte('1')
				} else {
					got.WriteByte('.')
				}
			}
			if got.String() != c.want {
				t.Fatalf("%s: got %s want %s (%s)", c.ability, got.String(), c.want, strings.Join(roles, " "))
			}
		})
	}
}

// TestEveryAbilityIsTabled keeps the table above complete.
func TestEveryAbilityIsTabled(t *testing.T) {
	src := map[access.Ability]bool{}
	for _, a := range access.Abilities() {
		src[a] = true
	}
	tabled := []access.Ability{access.ReadProject, access.DownloadCode, access.ForkProject, access.PushCode,
		access.PushToProtectedBranches, access.AdminProject, access.AdminProjectMember, access.RenameProject,
		access.ChangeVisibilityLevel, access.ArchiveProject, access.RemoveProject, access.ReadIssue,
		access.CreateIssue, access.UpdateIssue, access.AdminIssue, access.DestroyIssue, access.SetIssueCreatedAt,
		access.ReadMergeRequest, access.CreateMergeRequest, access.UpdateMergeRequest, access.DestroyMergeRequest,
		access.AdminMergeRequest, access.ReadSnippet, access.CreateSnippet, access.AdminSnippet, access.CreateNote, access.AdminNote,
		access.ReadPipeline, access.ReadCommitStatus, access.ReadJob, access.UpdateJob, access.CreatePipeline,
		access.UpdatePipeline, access.CreateCommitStatus, access.DestroyPipeline, access.AdminBuild, access.AdminHooks}
	for _, a := range tabled {
		delete(src, a)
	}
	for a := range src {
		t.Errorf("ability %s has no row in TestAbilityTable", a)
	}
}

func TestRequire(t *testing.T) {
	p := project(domain.Private)
	if err := target("anon", p).Require(access.PushCode); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("anonymous: %v", err)
	}
	if err := target("guest", p).Require(access.PushCode); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("guest: %v", err)
	}
	if err := target("dev", p).Require(access.PushCode); err != nil {
		t.Fatalf("developer: %v", err)
	}
}

// TestJobCallerOnlyReads: a CI job token never writes, whatever its
// user's level; it reads what a reporter reads.
func TestJobCallerOnlyReads(t *testing.T) {
	reads := map[access.Ability]bool{access.ReadProject: true, access.DownloadCode: true, access.ReadIssue: true,
		access.ReadMergeRequest: true, access.ReadSnippet: true, access.ReadPipeline: true,
		access.ReadCommitStatus: true, access.ReadJob: true}
	p := project(domain.Private, jobs)
	tg := target("master", p)
	tg.Caller.Job = &domain.Job{ProjectID: p.ID}
	tg.Rights.Level = domain.Reporter
	for _, a := range access.Abilities() {
		if got := tg.Can(a); got != reads[a] {
			t.Errorf("job caller %s: %v, want %v", a, got, reads[a])
		}
	}
}

// TestDeployKeyCaller: a deploy key fetches from its projects and, with
// can_push, pushes to unarchived ones; nothing else, anywhere.
func TestDeployKeyCaller(t *testing.T) {
	p := project(domain.Private, jobs)
	for _, c := range []struct {
		name     string
		projects []int64
		canPush  bool
		archived bool
		want     map[access.Ability]bool
	}{
		{"read-only key", []int64{p.ID}, false, false, map[access.Ability]bool{access.ReadProject: true, access.DownloadCode: true}},
		{"pushing key", []int64{p.ID}, true, false, map[access.Ability]bool{access.ReadProject: true, access.DownloadCode: true, access.PushCode: true}},
		{"pushing key, archived project", []int64{p.ID}, true, true, map[access.Ability]bool{access.ReadProject: true, access.DownloadCode: true}},
		{"key of another project", []int64{p.ID + 1}, true, false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := *p
			q.Archived = c.archived
			tg := access.Target{Project: &q, Rights: access.Rights{Read: true},
				Caller: &domain.Caller{DeployKey: &domain.DeployKeyAccess{Key: domain.DeployKey{CanPush: c.canPush}, Projects: c.projects}}}
			for _, a := range access.Abilities() {
				if got := tg.Can(a); got != c.want[a] {
					t.Errorf("%s: %v, want %v", a, got, c.want[a])
				}
			}
		})
	}
}
