package groups

import (
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
)

// groupJSON is GitLab 9.x's Group entity.
type groupJSON struct {
	ID                   int64           `json:"id"`
	Name                 string          `json:"name"`
	Path                 string          `json:"path"`
	Description          string          `json:"description"`
	Visibility           string          `json:"visibility"`
	LFSEnabled           bool            `json:"lfs_enabled"`
	AvatarURL            *string         `json:"avatar_url"`
	WebURL               string          `json:"web_url"`
	RequestAccessEnabled bool            `json:"request_access_enabled"`
	FullName             string          `json:"full_name"`
	FullPath             string          `json:"full_path"`
	ParentID             *int64          `json:"parent_id"`
	Statistics           *statisticsJSON `json:"statistics,omitempty"`
}

// statisticsJSON is the statistics object of a group (administrators only).
type statisticsJSON struct {
	StorageSize      int64 `json:"storage_size"`
	RepositorySize   int64 `json:"repository_size"`
	LFSObjectsSize   int64 `json:"lfs_objects_size"`
	JobArtifactsSize int64 `json:"job_artifacts_size"`
}

// groupDetailJSON is GitLab 9.x's GroupDetail: the group with its projects
// and the projects shared with it, rendered by apijson.ProjectPresenter.
type groupDetailJSON struct {
	groupJSON
	Projects       any `json:"projects"`
	SharedProjects any `json:"shared_projects"`
}

func groupOf(base string, grp *Group) groupJSON {
	g := &grp.Namespace
	out := groupJSON{
		ID:                   g.ID,
		Name:                 g.Name,
		Path:                 g.Path,
		Description:          g.Description,
		Visibility:           string(g.Visibility),
		LFSEnabled:           g.LFSEnabled,
		AvatarURL:            apijson.NullString(g.AvatarURL),
		WebURL:               base + "/groups/" + g.FullPath,
		RequestAccessEnabled: g.RequestAccessEnabled,
		FullName:             grp.FullName,
		FullPath:             g.FullPath,
		ParentID:             g.ParentID,
	}
	if s := grp.Statistics; s != nil {
		out.Statistics = &statisticsJSON{
			StorageSize:      s.StorageSize,
			RepositorySize:   s.RepositorySize,
			LFSObjectsSize:   s.LFSObjectsSize,
			JobArtifactsSize: s.JobArtifactsSize,
		}
	}
	return out
}

// Grape's `values:` of the group parameters.
var (
	visibilities  = []string{string(domain.Private), string(domain.Internal), string(domain.Public)}
	projectOrders = []string{
		string(domain.OrderByID), string(domain.OrderByName), string(domain.OrderByPath),
		string(domain.OrderByCreatedAt), string(domain.OrderByUpdatedAt), string(domain.OrderByLastActivityAt),
	}
)

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// listParams are GET /groups.
type listParams struct {
	SkipGroups   []int64 `param:"skip_groups"`
	AllAvailable *bool   `param:"all_available"`
	Search       string  `param:"search"`
	OrderBy      *string `param:"order_by"`
	Sort         *string `param:"sort"`
	Statistics   *bool   `param:"statistics"`
	Owned        *bool   `param:"owned"`
}

// createParams are POST /groups.
type createParams struct {
	Name                 string  `param:"name,required"`
	Path                 string  `param:"path,required"`
	Description          *string `param:"description"`
	Visibility           *string `param:"visibility"`
	LFSEnabled           *bool   `param:"lfs_enabled"`
	RequestAccessEnabled *bool   `param:"request_access_enabled"`
	ParentID             *int64  `param:"parent_id"`
}

// updateParams are PUT /groups/:id.
type updateParams struct {
	Name                 *string `param:"name"`
	Path                 *string `param:"path"`
	Description          *string `param:"description"`
	Visibility           *string `param:"visibility"`
	LFSEnabled           *bool   `param:"lfs_enabled"`
	RequestAccessEnabled *bool   `param:"request_access_enabled"`
}

// projectsParams are GET /groups/:id/projects.
type projectsParams struct {
	Archived   *bool   `param:"archived"`
	Visibility *string `param:"visibility"`
	OrderBy    *string `param:"order_by"`
	Sort       *string `param:"sort"`
	Search     string  `param:"search"`
	Simple     *bool   `param:"simple"`
	Owned      *bool   `param:"owned"`
	Starred    *bool   `param:"starred"`
	Statistics *bool   `param:"statistics"`
}

// input maps the parameters. GitLab 9.x declares archived with default
// false: archived projects are left out unless asked for.
func (in *projectsParams) input(pg domain.Page) ProjectsInput {
	archived := deref(in.Archived, false)
	return ProjectsInput{
		Archived:   &archived,
		Visibility: domain.Visibility(deref(in.Visibility, "")),
		OrderBy:    domain.ProjectOrder(deref(in.OrderBy, string(domain.OrderByCreatedAt))),
		Ascending:  deref(in.Sort, "desc") == "asc",
		Search:     in.Search,
		Owned:      deref(in.Owned, false),
		Starred:    deref(in.Starred, false),
		Page:       pg,
	}
}
