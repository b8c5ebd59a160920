package groups

import (
	"errors"
	"net/http"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// handlers decode, call the service and render. As in GitLab 9.x reads
// are open to anonymous callers (who see public groups) and writes need a
// user (401). Access checks come before parameter validation, so callers
// who may not use an endpoint learn nothing from its validation.
type handlers struct{ s *Service }

// decodeAll decodes every destination and reports all request-validation
// problems in one GitLab 400 ({"error":"a is missing, b is invalid"}),
// followed by the extra messages.
func decodeAll(r *http.Request, extra []string, dsts ...any) error {
	var msgs []string
	for _, d := range dsts {
		if err := httpx.Decode(r, d); err != nil {
			var e *core.Error
			if !errors.As(err, &e) || !e.Param {
				return err
			}
			msgs = append(msgs, e.Msg)
		}
	}
	msgs = append(msgs, extra...)
	if len(msgs) > 0 {
		return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: strings.Join(msgs, ", ")}
	}
	return nil
}

// values is Grape's `values:` check: "<name> does not have a valid value".
type values []string

func (v *values) check(name string, got *string, allowed ...string) {
	if got == nil {
		return
	}
	for _, a := range allowed {
		if *got == a {
			return
		}
	}
	*v = append(*v, name+" does not have a valid value")
}

var visibilities = []string{string(domain.Private), string(domain.Internal), string(domain.Public)}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// groupRef resolves the {id} path parameter to a group the caller may read.
func (h handlers) groupRef(r *http.Request) (*domain.Namespace, error) {
	g, _, err := h.groupRights(r)
	return g, err
}

func (h handlers) groupRights(r *http.Request) (*domain.Namespace, access.Rights, error) {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return nil, access.Rights{}, err
	}
	g, rights, err := h.s.Group(r.Context(), httpx.CallerOf(r), ref.ID, ref.Path)
	if err != nil {
		return nil, access.Rights{}, err
	}
	return g, rights, nil
}

// list is GET /groups.
func (h handlers) list(w http.ResponseWriter, r *http.Request) error {
	caller := httpx.CallerOf(r)
	var in listParams
	var bad values
	// Values are checked after decoding; decodeAll reports both together.
	if err := httpx.Decode(r, &in); err != nil {
		var e *core.Error
		if !errors.As(err, &e) || !e.Param {
			return err
		}
		bad = append(bad, e.Msg)
	}
	bad.check("order_by", in.OrderBy, "name", "path")
	bad.check("sort", in.Sort, "asc", "desc")
	if err := decodeAll(r, bad); err != nil {
		return err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	list, total, err := h.s.List(r.Context(), caller, ListInput{
		SkipIDs:      in.SkipGroups,
		AllAvailable: deref(in.AllAvailable, false),
		Search:       strings.TrimSpace(in.Search),
		OrderBy:      deref(in.OrderBy, "name"),
		Ascending:    deref(in.Sort, "asc") == "asc",
		Owned:        deref(in.Owned, false),
		Page:         pg,
	})
	if err != nil {
		return err
	}
	names, err := h.s.FullNames(r.Context(), list)
	if err != nil {
		return err
	}
	var stats map[int64]Statistics
	// GitLab 9.x shows statistics to administrators and silently leaves
	// them out for everyone else.
	if deref(in.Statistics, false) && caller.IsAdmin() {
		if stats, err = h.s.Statistics(r.Context(), list); err != nil {
			return err
		}
	}
	base := httpx.BaseURL(r)
	out := make([]groupJSON, len(list))
	for i := range list {
		out[i] = groupOf(base, &list[i], names[list[i].ID])
		if stats != nil {
			out[i].Statistics = statisticsOf(stats[list[i].ID])
		}
	}
	return httpx.Paginated(w, r, out, total, pg)
}

// detail renders a group with its projects and shared projects.
func (h handlers) detail(w http.ResponseWriter, r *http.Request, g *domain.Namespace, status int) error {
	ctx := r.Context()
	caller := httpx.CallerOf(r)
	projects, shared, err := h.s.Detail(ctx, caller, g)
	if err != nil {
		return err
	}
	names, err := h.s.FullNames(ctx, []domain.Namespace{*g})
	if err != nil {
		return err
	}
	pr, err := h.render(r, projects, apijson.ProjectOptions{})
	if err != nil {
		return err
	}
	sh, err := h.render(r, shared, apijson.ProjectOptions{})
	if err != nil {
		return err
	}
	return httpx.JSON(w, status, groupDetailJSON{
		groupJSON:      groupOf(httpx.BaseURL(r), g, names[g.ID]),
		Projects:       pr,
		SharedProjects: sh,
	})
}

// render renders projects with the shared presenter ([] when there are none).
func (h handlers) render(r *http.Request, list []domain.Project, opt apijson.ProjectOptions) (any, error) {
	if len(list) == 0 {
		return []struct{}{}, nil
	}
	return h.s.p.Presenter.Render(r.Context(), httpx.CallerOf(r), list, opt)
}

// get is GET /groups/:id.
func (h handlers) get(w http.ResponseWriter, r *http.Request) error {
	g, err := h.groupRef(r)
	if err != nil {
		return err
	}
	return h.detail(w, r, g, http.StatusOK)
}

// create is POST /groups: 201 with the group, its projects and shared projects.
func (h handlers) create(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireUser(r)
	if err != nil {
		return err
	}
	var in createParams
	decodeErr := httpx.Decode(r, &in)
	var pe *core.Error
	if decodeErr != nil && (!errors.As(decodeErr, &pe) || !pe.Param) {
		return decodeErr
	}
	// Access first: the parent (when given and valid) must be readable
	// and owned, otherwise the caller must be allowed to create groups.
	if _, err := h.s.CanCreate(r.Context(), caller, in.ParentID); err != nil {
		return err
	}
	var bad values
	if decodeErr != nil {
		bad = append(bad, pe.Msg)
	}
	bad.check("visibility", in.Visibility, visibilities...)
	if err := decodeAll(r, bad); err != nil {
		return err
	}
	g, err := h.s.Create(r.Context(), caller, CreateInput{
		Name:                 in.Name,
		Path:                 in.Path,
		Description:          deref(in.Description, ""),
		Visibility:           domain.Visibility(deref(in.Visibility, "")),
		LFSEnabled:           in.LFSEnabled,
		RequestAccessEnabled: in.RequestAccessEnabled,
		ParentID:             in.ParentID,
	})
	if err != nil {
		return err
	}
	return h.detail(w, r, g, http.StatusCreated)
}

// update is PUT /groups/:id (owners and administrators).
func (h handlers) update(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireUser(r)
	if err != nil {
		return err
	}
	g, rights, err := h.groupRights(r)
	if err != nil {
		return err
	}
	if !rights.AtLeast(domain.Owner) {
		return core.Forbidden("")
	}
	var in updateParams
	var bad values
	if err := httpx.Decode(r, &in); err != nil {
		var e *core.Error
		if !errors.As(err, &e) || !e.Param {
			return err
		}
		bad = append(bad, e.Msg)
	}
	bad.check("visibility", in.Visibility, visibilities...)
	if err := decodeAll(r, bad); err != nil {
		return err
	}
	var vis *domain.Visibility
	if in.Visibility != nil {
		v := domain.Visibility(*in.Visibility)
		vis = &v
	}
	out, err := h.s.Update(r.Context(), caller, g, rights, UpdateInput{
		Name:                 in.Name,
		Path:                 in.Path,
		Description:          in.Description,
		Visibility:           vis,
		LFSEnabled:           in.LFSEnabled,
		RequestAccessEnabled: in.RequestAccessEnabled,
	})
	if err != nil {
		return err
	}
	return h.detail(w, r, out, http.StatusOK)
}

// remove is DELETE /groups/:id: 202, as GitLab's asynchronous delete.
func (h handlers) remove(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireUser(r)
	if err != nil {
		return err
	}
	g, rights, err := h.groupRights(r)
	if err != nil {
		return err
	}
	if err := h.s.Delete(r.Context(), caller, g, rights); err != nil {
		return err
	}
	return httpx.JSON(w, http.StatusAccepted, map[string]string{"message": "202 Accepted"})
}

// transfer is POST /groups/:id/projects/:project_id (administrators only).
func (h handlers) transfer(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireAdmin(r)
	if err != nil {
		return err
	}
	g, err := h.groupRef(r)
	if err != nil {
		return err
	}
	ref, err := httpx.RefParam(r, "project_id")
	if err != nil {
		return err
	}
	project, _, err := h.s.p.Policy.ProjectByRef(r.Context(), caller, ref)
	if err != nil {
		return err
	}
	if err := h.s.Transfer(r.Context(), caller, g, project); err != nil {
		return err
	}
	return h.detail(w, r, g, http.StatusCreated)
}

var projectOrders = []string{
	string(domain.OrderByID), string(domain.OrderByName), string(domain.OrderByPath),
	string(domain.OrderByCreatedAt), string(domain.OrderByUpdatedAt), string(domain.OrderByLastActivityAt),
}

// projects is GET /groups/:id/projects.
func (h handlers) projects(w http.ResponseWriter, r *http.Request) error {
	g, err := h.groupRef(r)
	if err != nil {
		return err
	}
	var in projectsParams
	var bad values
	if err := httpx.Decode(r, &in); err != nil {
		var e *core.Error
		if !errors.As(err, &e) || !e.Param {
			return err
		}
		bad = append(bad, e.Msg)
	}
	bad.check("visibility", in.Visibility, visibilities...)
	bad.check("order_by", in.OrderBy, projectOrders...)
	bad.check("sort", in.Sort, "asc", "desc")
	if err := decodeAll(r, bad); err != nil {
		return err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	// GitLab 9.x declares archived with default false: archived projects
	// are left out unless asked for.
	archived := deref(in.Archived, false)
	caller := httpx.CallerOf(r)
	list, total, err := h.s.Projects(r.Context(), caller, g, ProjectsInput{
		Archived:   &archived,
		Visibility: domain.Visibility(deref(in.Visibility, "")),
		OrderBy:    domain.ProjectOrder(deref(in.OrderBy, string(domain.OrderByCreatedAt))),
		Ascending:  deref(in.Sort, "desc") == "asc",
		Search:     in.Search,
		Owned:      deref(in.Owned, false),
		Starred:    deref(in.Starred, false),
		Page:       pg,
	})
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
