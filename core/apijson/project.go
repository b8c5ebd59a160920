package apijson

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
)

// NamespaceEmbed is the namespace object inside a project.
type NamespaceEmbed struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Path     string `json:"path"`
	Kind     string `json:"kind"`
	FullPath string `json:"full_path"`
}

// ProjectBasic is GitLab 9.x's BasicProjectDetails (simple=true, forked_from_project).
type ProjectBasic struct {
	ID                int64      `json:"id"`
	Description       *string    `json:"description"`
	DefaultBranch     *string    `json:"default_branch"`
	TagList           []string   `json:"tag_list"`
	SSHURLToRepo      string     `json:"ssh_url_to_repo"`
	HTTPURLToRepo     string     `json:"http_url_to_repo"`
	WebURL            string     `json:"web_url"`
	Name              string     `json:"name"`
	NameWithNamespace string     `json:"name_with_namespace"`
	Path              string     `json:"path"`
	PathWithNamespace string     `json:"path_with_namespace"`
	StarCount         int        `json:"star_count"`
	ForksCount        int        `json:"forks_count"`
	CreatedAt         httpx.Time `json:"created_at"`
	LastActivityAt    httpx.Time `json:"last_activity_at"`
}

// Owner is the owner object of a personal project.
type Owner struct {
	ID        int64      `json:"id"`
	Name      string     `json:"name"`
	CreatedAt httpx.Time `json:"created_at"`
	Username  string     `json:"username"`
	State     string     `json:"state"`
	AvatarURL *string    `json:"avatar_url"`
	WebURL    string     `json:"web_url"`
}

// SharedWithGroup is one entry of shared_with_groups.
type SharedWithGroup struct {
	GroupID          int64  `json:"group_id"`
	GroupName        string `json:"group_name"`
	GroupAccessLevel int    `json:"group_access_level"`
}

// Access is one side of a project's permissions.
type Access struct {
	AccessLevel       int `json:"access_level"`
	NotificationLevel int `json:"notification_level"`
}

// Permissions is the caller's membership of the project and of its group.
type Permissions struct {
	ProjectAccess *Access `json:"project_access"`
	GroupAccess   *Access `json:"group_access"`
}

// Statistics is the project's statistics object.
type Statistics struct {
	CommitCount      int   `json:"commit_count"`
	StorageSize      int64 `json:"storage_size"`
	RepositorySize   int64 `json:"repository_size"`
	LFSObjectsSize   int64 `json:"lfs_objects_size"`
	JobArtifactsSize int64 `json:"job_artifacts_size"`
}

// Project is GitLab's full Project entity.
type Project struct {
	ProjectBasic
	Archived                                  bool              `json:"archived"`
	Visibility                                string            `json:"visibility"`
	Owner                                     *Owner            `json:"owner,omitempty"`
	ContainerRegistryEnabled                  bool              `json:"container_registry_enabled"`
	IssuesEnabled                             bool              `json:"issues_enabled"`
	MergeRequestsEnabled                      bool              `json:"merge_requests_enabled"`
	WikiEnabled                               bool              `json:"wiki_enabled"`
	JobsEnabled                               bool              `json:"jobs_enabled"`
	SnippetsEnabled                           bool              `json:"snippets_enabled"`
	SharedRunnersEnabled                      bool              `json:"shared_runners_enabled"`
	LFSEnabled                                bool              `json:"lfs_enabled"`
	CreatorID                                 int64             `json:"creator_id"`
	Namespace                                 NamespaceEmbed    `json:"namespace"`
	ForkedFromProject                         *ProjectBasic     `json:"forked_from_project,omitempty"`
	ImportStatus                              string            `json:"import_status"`
	ImportError                               *string           `json:"import_error"`
	AvatarURL                                 *string           `json:"avatar_url"`
	OpenIssuesCount                           int               `json:"open_issues_count"`
	PublicJobs                                bool              `json:"public_jobs"`
	CIConfigPath                              *string           `json:"ci_config_path"`
	SharedWithGroups                          []SharedWithGroup `json:"shared_with_groups"`
	OnlyAllowMergeIfPipelineSucceeds          bool              `json:"only_allow_merge_if_pipeline_succeeds"`
	RequestAccessEnabled                      bool              `json:"request_access_enabled"`
	OnlyAllowMergeIfAllDiscussionsAreResolved bool              `json:"only_allow_merge_if_all_discussions_are_resolved"`
	PrintingMergeRequestsLinkEnabled          bool              `json:"printing_merge_requests_link_enabled"`
	Permissions                               *Permissions      `json:"permissions,omitempty"`
	Statistics                                *Statistics       `json:"statistics,omitempty"`
}

// ProjectOptions choose what a rendering includes.
type ProjectOptions struct {
	Simple      bool
	Statistics  bool
	Permissions bool // the caller's permissions (single-project reads)
	// Namespaces already read (access.Target.Namespaces), each with its
	// ancestors: they are not read again.
	Namespaces []domain.Namespace
	// Standing, when set, is what the access check read of the caller's
	// memberships and the project's shares (access.Target.Standing), for
	// the permissions block and shared_with_groups of a single project.
	Standing *domain.Standing
	// Viewer, when set, is which confidential issues the caller sees in
	// the (single) project rendered (access.Target.IssueViewer), so that
	// counting open issues need not compute it over all their projects.
	Viewer *domain.IssueViewer
}

// ProjectPresenter renders projects with what they embed, loading
// namespaces, owners, shares and fork sources in a constant number of
// queries whatever the number of projects.
type ProjectPresenter struct {
	// BaseURL is the external URL without a trailing slash; every URL
	// rendered starts with it.
	BaseURL string
	// SSHBase starts every SSH clone URL (config.SSHCloneBase).
	SSHBase    string
	Namespaces ports.NamespaceStore
	Projects   ports.ProjectStore
	Users      ports.UserStore
	Members    ports.MemberStore
	Repos      ports.RepoStorage
	// Issues and Viewer count the open issues each caller may see; without
	// them open_issues_count is the stored number.
	Issues ports.IssueCounter
	Viewer func(ctx context.Context, caller *domain.Caller) (domain.IssueViewer, error)
}

type projectContext struct {
	base, sshBase string
	namespaces    map[int64]*domain.Namespace
	fullNames     map[int64]string
	owners        map[int64]*domain.User
	shares        map[int64][]domain.ProjectShare
	forks         map[int64]*domain.Project
	openIssues    map[int64]int // nil: use the stored count
	standing      *domain.Standing
}

// Render renders projects as a JSON array value (full or simple).
func (p *ProjectPresenter) Render(ctx context.Context, caller *domain.Caller, list []domain.Project, opt ProjectOptions) (any, error) {
	pc, err := p.load(ctx, callerUser(caller), list, !opt.Simple, opt.Namespaces, nil)
	if err != nil {
		return nil, err
	}
	if !opt.Simple {
		if err := p.countIssues(ctx, pc, caller, list, nil); err != nil {
			return nil, err
		}
	}
	if opt.Simple {
		out := make([]ProjectBasic, 0, len(list))
		for i := range list {
			out = append(out, pc.basic(&list[i]))
		}
		return out, nil
	}
	out := make([]Project, 0, len(list))
	for i := range list {
		proj, err := p.full(ctx, pc, caller, &list[i], opt)
		if err != nil {
			return nil, err
		}
		out = append(out, proj)
	}
	return out, nil
}

// One renders a single project.
func (p *ProjectPresenter) One(ctx context.Context, caller *domain.Caller, proj *domain.Project, opt ProjectOptions) (*Project, error) {
	pc, err := p.load(ctx, callerUser(caller), []domain.Project{*proj}, true, opt.Namespaces, opt.Standing)
	if err != nil {
		return nil, err
	}
	if err := p.countIssues(ctx, pc, caller, []domain.Project{*proj}, opt.Viewer); err != nil {
		return nil, err
	}
	out, err := p.full(ctx, pc, caller, proj, opt)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// load reads what list embeds; known namespaces (each with its ancestors)
// are not read again.
func (p *ProjectPresenter) load(ctx context.Context, caller *domain.User, list []domain.Project, full bool, known []domain.Namespace, st *domain.Standing) (*projectContext, error) {
	pc := &projectContext{base: p.BaseURL, sshBase: p.SSHBase, namespaces: map[int64]*domain.Namespace{},
		fullNames: map[int64]string{}, owners: map[int64]*domain.User{},
		shares: map[int64][]domain.ProjectShare{}, forks: map[int64]*domain.Project{}, standing: st}
	var nsIDs, projectIDs, forkIDs []int64
	for _, proj := range list {
		nsIDs = append(nsIDs, proj.NamespaceID)
		projectIDs = append(projectIDs, proj.ID)
		if proj.ForkedFromID != nil && full {
			forkIDs = append(forkIDs, *proj.ForkedFromID)
		}
	}
	if full && len(forkIDs) > 0 {
		forks, err := p.Projects.GetMany(ctx, forkIDs)
		if err != nil {
			return nil, fmt.Errorf("load fork sources: %w", err)
		}
		for i := range forks {
			pc.forks[forks[i].ID] = &forks[i]
			nsIDs = append(nsIDs, forks[i].NamespaceID)
		}
	}
	var shares []domain.ProjectShare
	if full && len(projectIDs) > 0 {
		if st != nil && st.SharesRead && len(projectIDs) == 1 && projectIDs[0] == st.ProjectID {
			shares = st.Shares
		} else {
			var err error
			if shares, err = p.Members.SharesOfProjects(ctx, projectIDs); err != nil {
				return nil, fmt.Errorf("load shares: %w", err)
			}
		}
		for _, s := range shares {
			pc.shares[s.ProjectID] = append(pc.shares[s.ProjectID], s)
			nsIDs = append(nsIDs, s.GroupID)
		}
	}
	// Full names need every ancestor's name.
	nss := known
	var missing []int64
	for _, id := range nsIDs {
		if !slices.ContainsFunc(known, func(n domain.Namespace) bool { return n.ID == id }) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		more, err := p.Namespaces.WithAncestors(ctx, missing)
		if err != nil {
			return nil, fmt.Errorf("load namespaces: %w", err)
		}
		nss = append(slices.Clip(known), more...)
	}
	var ownerIDs []int64
	for i := range nss {
		pc.namespaces[nss[i].ID] = &nss[i]
		if nss[i].OwnerID != nil {
			ownerIDs = append(ownerIDs, *nss[i].OwnerID)
		}
	}
	if full && len(ownerIDs) > 0 {
		owners, err := usersByID(ctx, p.Users, ownerIDs, "project owners", caller)
		if err != nil {
			return nil, err
		}
		pc.owners = owners
	}
	return pc, nil
}

// countIssues loads the open issues each project shows the caller (one
// query for the whole list): confidential ones count only for those who
// may see them.
func (p *ProjectPresenter) countIssues(ctx context.Context, pc *projectContext, caller *domain.Caller, list []domain.Project, known *domain.IssueViewer) error {
	if p.Issues == nil || p.Viewer == nil || len(list) == 0 {
		return nil
	}
	var viewer domain.IssueViewer
	var err error
	if known != nil {
		viewer = *known
	} else if viewer, err = p.Viewer(ctx, caller); err != nil {
		return fmt.Errorf("issue viewer: %w", err)
	}
	ids := make([]int64, len(list))
	for i := range list {
		ids[i] = list[i].ID
	}
	if pc.openIssues, err = p.Issues.CountOpen(ctx, ids, viewer); err != nil {
		return fmt.Errorf("count open issues: %w", err)
	}
	return nil
}

func (pc *projectContext) openIssuesOf(proj *domain.Project) int {
	if pc.openIssues == nil {
		return proj.OpenIssuesCount
	}
	if !proj.IssuesEnabled {
		return 0
	}
	return pc.openIssues[proj.ID]
}

// fullName is "Top / Sub / Name" for a namespace.
func (pc *projectContext) fullName(id int64) string {
	if n, ok := pc.fullNames[id]; ok {
		return n
	}
	ns := pc.namespaces[id]
	if ns == nil {
		return ""
	}
	name := ns.Name
	if ns.ParentID != nil {
		if parent := pc.fullName(*ns.ParentID); parent != "" {
			name = parent + " / " + name
		}
	}
	pc.fullNames[id] = name
	return name
}

func (pc *projectContext) basic(proj *domain.Project) ProjectBasic {
	ns := pc.namespaces[proj.NamespaceID]
	nsPath := ""
	if ns != nil {
		nsPath = ns.FullPath
	}
	full := nsPath + "/" + proj.Path
	urls := ProjectURLs(pc.base, pc.sshBase, full)
	tags := proj.TagList
	if tags == nil {
		tags = []string{}
	}
	return ProjectBasic{
		ID:                proj.ID,
		Description:       &proj.Description,
		DefaultBranch:     NullString(proj.DefaultBranch),
		TagList:           tags,
		SSHURLToRepo:      urls.SSH,
		HTTPURLToRepo:     urls.HTTP,
		WebURL:            urls.Web,
		Name:              proj.Name,
		NameWithNamespace: strings.TrimPrefix(pc.fullName(proj.NamespaceID)+" / "+proj.Name, " / "),
		Path:              proj.Path,
		PathWithNamespace: full,
		StarCount:         proj.StarCount,
		ForksCount:        proj.ForksCount,
		CreatedAt:         httpx.TimeOf(proj.CreatedAt),
		LastActivityAt:    httpx.TimeOf(proj.LastActivityAt),
	}
}

func (p *ProjectPresenter) full(ctx context.Context, pc *projectContext, caller *domain.Caller, proj *domain.Project, opt ProjectOptions) (Project, error) {
	out := Project{
		ProjectBasic:                     pc.basic(proj),
		Archived:                         proj.Archived,
		Visibility:                       string(proj.Visibility),
		ContainerRegistryEnabled:         proj.ContainerRegistryEnabled,
		IssuesEnabled:                    proj.IssuesEnabled,
		MergeRequestsEnabled:             proj.MergeRequestsEnabled,
		WikiEnabled:                      proj.WikiEnabled,
		JobsEnabled:                      proj.JobsEnabled,
		SnippetsEnabled:                  proj.SnippetsEnabled,
		SharedRunnersEnabled:             proj.SharedRunnersEnabled,
		LFSEnabled:                       proj.LFSEnabled,
		CreatorID:                        proj.CreatorID,
		ImportStatus:                     proj.ImportStatus,
		ImportError:                      NullString(proj.ImportError),
		AvatarURL:                        NullString(proj.AvatarURL),
		OpenIssuesCount:                  pc.openIssuesOf(proj),
		PublicJobs:                       proj.PublicJobs,
		CIConfigPath:                     NullString(proj.CIConfigPath),
		SharedWithGroups:                 []SharedWithGroup{},
		OnlyAllowMergeIfPipelineSucceeds: proj.OnlyAllowMergeIfPipelineSucceeds,
		RequestAccessEnabled:             proj.RequestAccessEnabled,
		OnlyAllowMergeIfAllDiscussionsAreResolved: proj.OnlyAllowMergeIfAllDiscussionsAreResolved,
		PrintingMergeRequestsLinkEnabled:          proj.PrintingMergeRequestLinkEnabled,
	}
	if out.ImportStatus == "" {
		out.ImportStatus = domain.ImportNone
	}
	if ns := pc.namespaces[proj.NamespaceID]; ns != nil {
		out.Namespace = NamespaceEmbed{ID: ns.ID, Name: ns.Name, Path: ns.Path, Kind: string(ns.Kind), FullPath: ns.FullPath}
		if ns.OwnerID != nil {
			if u := pc.owners[*ns.OwnerID]; u != nil {
				out.Owner = &Owner{ID: u.ID, Name: u.Name, CreatedAt: httpx.TimeOf(u.CreatedAt), Username: u.Username,
					State: UserState(u), AvatarURL: NullString(u.AvatarURL), WebURL: pc.base + "/" + u.Username}
			}
		}
	}
	if proj.ForkedFromID != nil {
		if src := pc.forks[*proj.ForkedFromID]; src != nil {
			b := pc.basic(src)
			out.ForkedFromProject = &b
		}
	}
	for _, s := range pc.shares[proj.ID] {
		name := ""
		if g := pc.namespaces[s.GroupID]; g != nil {
			name = g.Name
		}
		out.SharedWithGroups = append(out.SharedWithGroups, SharedWithGroup{GroupID: s.GroupID, GroupName: name, GroupAccessLevel: int(s.GroupAccess)})
	}
	if opt.Permissions {
		perms, err := p.permissions(ctx, pc, caller, proj)
		if err != nil {
			return out, err
		}
		out.Permissions = perms
	}
	if opt.Statistics && p.Repos != nil {
		size, commits, err := p.Repos.Stats(ctx, domain.RepoPath(proj.ID), proj.DefaultBranch)
		if err != nil {
			return out, fmt.Errorf("repository statistics: %w", err)
		}
		out.Statistics = &Statistics{CommitCount: commits, StorageSize: size, RepositorySize: size}
	}
	return out, nil
}

// permissions are the caller's direct project membership and their
// membership of the project's group (with its ancestors), as GitLab shows
// them. The namespace chain is the one load already read.
func (p *ProjectPresenter) permissions(ctx context.Context, pc *projectContext, caller *domain.Caller, proj *domain.Project) (*Permissions, error) {
	perms := &Permissions{}
	uid := caller.UserID()
	if uid == 0 {
		return perms, nil
	}
	st := pc.standing
	if st != nil && (st.UserID != uid || st.ProjectID != proj.ID) {
		st = nil
	}
	if st != nil && st.DirectRead {
		for _, m := range st.Direct {
			perms.ProjectAccess = &Access{AccessLevel: int(m.AccessLevel), NotificationLevel: 3}
		}
	} else if m, err := p.Members.Get(ctx, domain.MemberOfProject, proj.ID, uid); err == nil {
		perms.ProjectAccess = &Access{AccessLevel: int(m.AccessLevel), NotificationLevel: 3}
	}
	ns := pc.namespaces[proj.NamespaceID]
	if ns == nil {
		return nil, fmt.Errorf("project namespace %d not loaded", proj.NamespaceID)
	}
	switch {
	case ns.Kind == domain.NamespaceUser && ns.OwnerID != nil && *ns.OwnerID == uid && perms.ProjectAccess == nil:
		perms.ProjectAccess = &Access{AccessLevel: int(domain.Owner), NotificationLevel: 3}
	case ns.Kind == domain.NamespaceGroup:
		var chain []int64
		for g := ns; g != nil && len(chain) < 1000; {
			chain = append(chain, g.ID)
			if g.ParentID == nil {
				break
			}
			g = pc.namespaces[*g.ParentID]
		}
		ms, ok := st.GroupRows(chain)
		if !ok {
			var err error
			if ms, err = p.Members.InSources(ctx, uid, domain.MemberOfGroup, chain); err != nil {
				return nil, fmt.Errorf("group membership: %w", err)
			}
		}
		best := 0
		for _, m := range ms {
			best = max(best, int(m.AccessLevel))
		}
		if best > 0 {
			perms.GroupAccess = &Access{AccessLevel: best, NotificationLevel: 3}
		}
	}
	return perms, nil
}

// Basics renders the brief form of each project, keyed by ID, loading
// their namespaces in a constant number of queries (merge requests and
// todos embed projects and link to them).
func (p *ProjectPresenter) Basics(ctx context.Context, list []domain.Project) (map[int64]ProjectBasic, error) {
	return p.BasicsIn(ctx, list, nil)
}

// BasicsIn is Basics with namespaces already read (each with its
// ancestors), which are not read again.
func (p *ProjectPresenter) BasicsIn(ctx context.Context, list []domain.Project, known []domain.Namespace) (map[int64]ProjectBasic, error) {
	out := make(map[int64]ProjectBasic, len(list))
	if len(list) == 0 {
		return out, nil
	}
	pc, err := p.load(ctx, nil, list, false, known, nil)
	if err != nil {
		return nil, err
	}
	for i := range list {
		out[list[i].ID] = pc.basic(&list[i])
	}
	return out, nil
}

// RepoURLs are a project's page and clone URLs.
type RepoURLs struct{ Web, SSH, HTTP string }

// ProjectURLs are the URLs of the project at fullPath, as every API
// entity and webhook payload shows them: base is the external URL without
// a trailing slash, sshBase what SSH clone URLs start with
// (config.SSHCloneBase: "git@host:" or "ssh://git@host:port/").
func ProjectURLs(base, sshBase, fullPath string) RepoURLs {
	web := base + "/" + fullPath
	return RepoURLs{Web: web, SSH: sshBase + fullPath + ".git", HTTP: web + ".git"}
}
