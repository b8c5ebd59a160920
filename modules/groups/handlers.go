package groups

import (
	"net/http"
	"strings"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// handlers decode the request into typed input, call one service method
// and render. Parameter problems travel in the input (Invalid): the service
// reports them after its access checks.
type handlers struct {
	s    *Service
	pres *apijson.ProjectPresenter
}

// list is GET /groups.
func (h handlers) list(w http.ResponseWriter, r *http.Request) error {
	var in listParams
	var bad httpx.Problems
	if err := bad.Decode(r, &in); err != nil {
		return err
	}
	bad.OneOf("order_by", in.OrderBy, "name", "path")
	bad.OneOf("sort", in.Sort, "asc", "desc")
	if err := bad.Err(); err != nil {
		return err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	list, total, err := h.s.List(r.Context(), httpx.CallerOf(r), ListInput{
		SkipIDs:      in.SkipGroups,
		AllAvailable: deref(in.AllAvailable, false),
		Search:       strings.TrimSpace(in.Search),
		OrderBy:      deref(in.OrderBy, "name"),
		Ascending:    deref(in.Sort, "asc") == "asc",
		Owned:        deref(in.Owned, false),
		Statistics:   deref(in.Statistics, false),
		Page:         pg,
	})
	if err != nil {
		return err
	}
	base := httpx.BaseURL(r)
	out := make([]groupJSON, len(list))
	for i := range list {
		out[i] = groupOf(base, &list[i])
	}
	return httpx.Paginated(w, r, out, total, pg)
}

// detail renders a group with its projects and shared projects.
func (h handlers) detail(w http.ResponseWriter, r *http.Request, d *Detail, status int) error {
	projects, err := h.render(r, d.Projects, apijson.ProjectOptions{})
	if err != nil {
		return err
	}
	shared, err := h.render(r, d.Shared, apijson.ProjectOptions{})
	if err != nil {
		return err
	}
	return httpx.JSON(w, status, groupDetailJSON{
		groupJSON:      groupOf(httpx.BaseURL(r), &d.Group),
		Projects:       projects,
		SharedProjects: shared,
	})
}

// render renders projects with the shared presenter ([] when there are none).
func (h handlers) render(r *http.Request, list []domain.Project, opt apijson.ProjectOptions) (any, error) {
	if len(list) == 0 {
		return []struct{}{}, nil
	}
	return h.pres.Render(r.Context(), httpx.CallerOf(r), list, opt)
}

// get is GET /groups/:id.
func (h handlers) get(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	d, err := h.s.Get(r.Context(), httpx.CallerOf(r), ref)
	if err != nil {
		return err
	}
	return h.detail(w, r, d, http.StatusOK)
}

// create is POST /groups: 201 with the group, its projects and shared projects.
func (h handlers) create(w http.ResponseWriter, r *http.Request) error {
	var in createParams
	var bad httpx.Problems
	if err := bad.Decode(r, &in); err != nil {
		return err
	}
	bad.OneOf("visibility", in.Visibility, visibilities...)
	d, err := h.s.Create(r.Context(), httpx.CallerOf(r), CreateInput{
		Name:                 in.Name,
		Path:                 in.Path,
		Description:          deref(in.Description, ""),
		Visibility:           domain.Visibility(deref(in.Visibility, "")),
		LFSEnabled:           in.LFSEnabled,
		RequestAccessEnabled: in.RequestAccessEnabled,
		ParentID:             in.ParentID,
		Invalid:              bad.Err(),
	})
	if err != nil {
		return err
	}
	return h.detail(w, r, d, http.StatusCreated)
}

// update is PUT /groups/:id (owners and administrators).
func (h handlers) update(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	var in updateParams
	var bad httpx.Problems
	if err := bad.Decode(r, &in); err != nil {
		return err
	}
	bad.OneOf("visibility", in.Visibility, visibilities...)
	var vis *domain.Visibility
	if in.Visibility != nil {
		v := domain.Visibility(*in.Visibility)
		vis = &v
	}
	d, err := h.s.Update(r.Context(), httpx.CallerOf(r), ref, UpdateInput{
		Name:                 in.Name,
		Path:                 in.Path,
		Description:          in.Description,
		Visibility:           vis,
		LFSEnabled:           in.LFSEnabled,
		RequestAccessEnabled: in.RequestAccessEnabled,
		Invalid:              bad.Err(),
	})
	if err != nil {
		return err
	}
	return h.detail(w, r, d, http.StatusOK)
}

// remove is DELETE /groups/:id: 202, as GitLab's asynchronous delete.
func (h handlers) remove(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	if err := h.s.Delete(r.Context(), httpx.CallerOf(r), ref); err != nil {
		return err
	}
	return httpx.JSON(w, http.StatusAccepted, map[string]string{"message": "202 Accepted"})
}

// transfer is POST /groups/:id/projects/:project_id (administrators only).
func (h handlers) transfer(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	project, err := httpx.RefParam(r, "project_id")
	if err != nil {
		return err
	}
	d, err := h.s.Transfer(r.Context(), httpx.CallerOf(r), ref, project)
	if err != nil {
		return err
	}
	return h.detail(w, r, d, http.StatusCreated)
}

// projects is GET /groups/:id/projects.
func (h handlers) projects(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	var in projectsParams
	var bad httpx.Problems
	if err := bad.Decode(r, &in); err != nil {
		return err
	}
	bad.OneOf("visibility", in.Visibility, visibilities...)
	bad.OneOf("order_by", in.OrderBy, projectOrders...)
	bad.OneOf("sort", in.Sort, "asc", "desc")
	pg, perr := httpx.PageOf(r)
	input := in.input(pg)
	if input.Invalid = bad.Err(); input.Invalid == nil {
		input.Invalid = perr
	}
	list, total, err := h.s.Projects(r.Context(), httpx.CallerOf(r), ref, input)
	if err != nil {
		return err
	}
	out, err := h.render(r, list, apijson.ProjectOptions{
		Simple:     deref(in.Simple, false),
		Statistics: deref(in.Statistics, false),
	})
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, out, total, pg)
}
