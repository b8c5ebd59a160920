package projects

import (
	"time"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// namespaceJSON is GitLab 9.x's Entities::Namespace.
type namespaceJSON struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Path     string `json:"path"`
	Kind     string `json:"kind"`
	FullPath string `json:"full_path"`
	ParentID *int64 `json:"parent_id"`
}

func namespaceOf(n *domain.Namespace) namespaceJSON {
	return namespaceJSON{ID: n.ID, Name: n.Name, Path: n.Path, Kind: string(n.Kind), FullPath: n.FullPath, ParentID: n.ParentID}
}

// shareJSON is GitLab's Entities::ProjectGroupLink. Shares have no ID of
// their own in Hearth's domain, so id is null.
type shareJSON struct {
	ID          *int64      `json:"id"`
	ProjectID   int64       `json:"project_id"`
	GroupID     int64       `json:"group_id"`
	GroupAccess int         `json:"group_access"`
	ExpiresAt   *httpx.Date `json:"expires_at"`
}

func shareOf(s *domain.ProjectShare) shareJSON {
	return shareJSON{ProjectID: s.ProjectID, GroupID: s.GroupID, GroupAccess: int(s.GroupAccess), ExpiresAt: httpx.DatePtr(s.ExpiresAt)}
}

// Grape's `values:` of the project parameters.
var (
	visibilities = []string{string(domain.Private), string(domain.Internal), string(domain.Public)}
	orders       = []string{"id", "name", "path", "created_at", "updated_at", "last_activity_at"}
)

// listParams are the filters of the project lists.
type listParams struct {
	Archived                 *bool   `param:"archived"`
	Visibility               *string `param:"visibility"`
	OrderBy                  *string `param:"order_by"`
	Sort                     *string `param:"sort"`
	Search                   *string `param:"search"`
	Simple                   *bool   `param:"simple"`
	Owned                    *bool   `param:"owned"`
	Membership               *bool   `param:"membership"`
	Starred                  *bool   `param:"starred"`
	Statistics               *bool   `param:"statistics"`
	WithIssuesEnabled        *bool   `param:"with_issues_enabled"`
	WithMergeRequestsEnabled *bool   `param:"with_merge_requests_enabled"`
}

func (in *listParams) input(pg domain.Page) ListInput {
	return ListInput{
		Archived:                 in.Archived,
		Visibility:               domain.Visibility(deref(in.Visibility, "")),
		OrderBy:                  domain.ProjectOrder(deref(in.OrderBy, "created_at")),
		Ascending:                deref(in.Sort, "desc") == "asc",
		Search:                   deref(in.Search, ""),
		Owned:                    deref(in.Owned, false),
		Membership:               deref(in.Membership, false),
		Starred:                  deref(in.Starred, false),
		WithIssuesEnabled:        deref(in.WithIssuesEnabled, false),
		WithMergeRequestsEnabled: deref(in.WithMergeRequestsEnabled, false),
		Page:                     pg,
	}
}

// settingsParams are the project parameters of create, create for user and
// edit (each endpoint reads the ones it accepts).
type settingsParams struct {
	Name                                      *string   `param:"name"`
	Path                                      *string   `param:"path"`
	NamespaceID                               *int64    `param:"namespace_id"`
	DefaultBranch                             *string   `param:"default_branch"`
	Description                               *string   `param:"description"`
	IssuesEnabled                             *bool     `param:"issues_enabled"`
	MergeRequestsEnabled                      *bool     `param:"merge_requests_enabled"`
	JobsEnabled                               *bool     `param:"jobs_enabled"`
	WikiEnabled                               *bool     `param:"wiki_enabled"`
	SnippetsEnabled                           *bool     `param:"snippets_enabled"`
	ContainerRegistryEnabled                  *bool     `param:"container_registry_enabled"`
	SharedRunnersEnabled                      *bool     `param:"shared_runners_enabled"`
	Visibility                                *string   `param:"visibility"`
	ImportURL                                 *string   `param:"import_url"`
	PublicJobs                                *bool     `param:"public_jobs"`
	OnlyAllowMergeIfPipelineSucceeds          *bool     `param:"only_allow_merge_if_pipeline_succeeds"`
	OnlyAllowMergeIfAllDiscussionsAreResolved *bool     `param:"only_allow_merge_if_all_discussions_are_resolved"`
	LFSEnabled                                *bool     `param:"lfs_enabled"`
	RequestAccessEnabled                      *bool     `param:"request_access_enabled"`
	TagList                                   *[]string `param:"tag_list"`
	// Avatar is only accepted as an uploaded file (multipart), which
	// parameter decoding does not see; a plain value is invalid, as in GitLab.
	Avatar                          *string `param:"avatar"`
	PrintingMergeRequestLinkEnabled *bool   `param:"printing_merge_request_link_enabled"`
	CIConfigPath                    *string `param:"ci_config_path"`
}

func (p *settingsParams) settings() Settings {
	in := Settings{
		Name:                             p.Name,
		Path:                             p.Path,
		DefaultBranch:                    p.DefaultBranch,
		Description:                      p.Description,
		ImportURL:                        p.ImportURL,
		CIConfigPath:                     p.CIConfigPath,
		IssuesEnabled:                    p.IssuesEnabled,
		MergeRequestsEnabled:             p.MergeRequestsEnabled,
		JobsEnabled:                      p.JobsEnabled,
		WikiEnabled:                      p.WikiEnabled,
		SnippetsEnabled:                  p.SnippetsEnabled,
		ContainerRegistryEnabled:         p.ContainerRegistryEnabled,
		SharedRunnersEnabled:             p.SharedRunnersEnabled,
		PublicJobs:                       p.PublicJobs,
		OnlyAllowMergeIfPipelineSucceeds: p.OnlyAllowMergeIfPipelineSucceeds,
		OnlyAllowMergeIfAllDiscussionsAreResolved: p.OnlyAllowMergeIfAllDiscussionsAreResolved,
		LFSEnabled:                      p.LFSEnabled,
		RequestAccessEnabled:            p.RequestAccessEnabled,
		PrintingMergeRequestLinkEnabled: p.PrintingMergeRequestLinkEnabled,
		TagList:                         p.TagList,
	}
	if p.Visibility != nil {
		v := domain.Visibility(*p.Visibility)
		in.Visibility = &v
	}
	return in
}

// updateParams are GitLab's at_least_one_of for edit, in its order.
var updateParams = []string{
	"jobs_enabled", "container_registry_enabled", "default_branch", "description", "issues_enabled",
	"lfs_enabled", "merge_requests_enabled", "name", "only_allow_merge_if_all_discussions_are_resolved",
	"only_allow_merge_if_pipeline_succeeds", "path", "public_jobs", "request_access_enabled",
	"shared_runners_enabled", "snippets_enabled", "visibility", "wiki_enabled", "tag_list",
	"import_url", "ci_config_path", "avatar",
}

// shareParams are POST /projects/:id/share's.
type shareParams struct {
	GroupID     *int64     `param:"group_id,required"`
	GroupAccess *int       `param:"group_access,required"`
	ExpiresAt   *time.Time `param:"expires_at"`
}

// validShareLevel is group_access's `values:` (ShareLevels).
func validShareLevel(n int) bool {
	for _, l := range ShareLevels {
		if int(l) == n {
			return true
		}
	}
	return false
}
