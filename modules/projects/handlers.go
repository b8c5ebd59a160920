package projects

import (
	"net/http"
	"strconv"

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

// one renders a single project with status.
func (h handlers) one(w http.ResponseWriter, r *http.Request, p *domain.Project, status int, opt apijson.ProjectOptions) error {
	out, err := h.pres.One(r.Context(), httpx.CallerOf(r), p, opt)
	if err != nil {
		return err
	}
	return httpx.JSON(w, status, out)
}

// page renders a page of projects with GitLab's pagination headers.
func (h handlers) page(w http.ResponseWriter, r *http.Request, list []domain.Project, total int, pg domain.Page, opt apijson.ProjectOptions) error {
	out, err := h.pres.Render(r.Context(), httpx.CallerOf(r), list, opt)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, out, total, pg)
}

// list is GET /projects.
func (h handlers) list(w http.ResponseWriter, r *http.Request) error {
	in, opt, err := listInput(r)
	if err != nil {
		return err
	}
	list, total, err := h.s.List(r.Context(), httpx.CallerOf(r), in)
	if err != nil {
		return err
	}
	return h.page(w, r, list, total, in.Page, opt)
}

// userProjects is GET /users/:user_id/projects.
func (h handlers) userProjects(w http.ResponseWriter, r *http.Request) error {
	user, err := httpx.PathParam(r, "user_id")
	if err != nil {
		return err
	}
	in, opt, err := listInput(r)
	if err != nil {
		return err
	}
	list, total, err := h.s.UserProjects(r.Context(), httpx.CallerOf(r), user, in)
	if err != nil {
		return err
	}
	return h.page(w, r, list, total, in.Page, opt)
}

// get is GET /projects/:id, with the caller's permissions when signed in.
func (h handlers) get(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	caller := httpx.CallerOf(r)
	t, err := h.s.Project(r.Context(), caller, ref)
	if err != nil {
		return err
	}
	var in struct {
		Statistics *bool `param:"statistics"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	viewer := t.IssueViewer()
	return h.one(w, r, t.Project, http.StatusOK, apijson.ProjectOptions{
		Statistics: deref(in.Statistics, false), Permissions: caller.UserID() != 0,
		Namespaces: t.Namespaces, Standing: t.Standing, Viewer: &viewer,
	})
}

// users is GET /projects/:id/users.
func (h handlers) users(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	search, pg, bad := searchPage(r)
	list, total, err := h.s.Users(r.Context(), httpx.CallerOf(r), ref, UsersInput{Search: search, Page: pg, Invalid: bad})
	if err != nil {
		return err
	}
	base := httpx.BaseURL(r)
	out := make([]apijson.UserBasic, len(list))
	for i := range list {
		out[i] = apijson.UserBasicOf(base, &list[i])
	}
	return httpx.Paginated(w, r, out, total, pg)
}

// create is POST /projects: 201 with the project.
func (h handlers) create(w http.ResponseWriter, r *http.Request) error {
	var bad httpx.Problems
	in, err := settingsInput(r, &bad)
	if err != nil {
		return err
	}
	bad.AtLeastOneOf(r, "name", "path")
	in.DefaultBranch = nil // not a create parameter (GitLab 9.x, the spec)
	p, err := h.s.Create(r.Context(), httpx.CallerOf(r), CreateInput{Settings: in.settings(), NamespaceID: in.NamespaceID, Invalid: bad.Err()})
	if err != nil {
		return err
	}
	return h.one(w, r, p, http.StatusCreated, apijson.ProjectOptions{})
}

// createForUser is POST /projects/user/:user_id (administrators).
func (h handlers) createForUser(w http.ResponseWriter, r *http.Request) error {
	raw, err := httpx.PathParam(r, "user_id")
	if err != nil {
		return err
	}
	var bad httpx.Problems
	userID, perr := strconv.ParseInt(raw, 10, 64)
	if perr != nil {
		bad.Add("user_id is invalid")
	}
	in, err := settingsInput(r, &bad)
	if err != nil {
		return err
	}
	if in.Name == nil {
		bad = append(httpx.Problems{"name is missing"}, bad...)
	}
	p, err := h.s.CreateForUser(r.Context(), httpx.CallerOf(r), userID, CreateInput{Settings: in.settings(), NamespaceID: in.NamespaceID, Invalid: bad.Err()})
	if err != nil {
		return err
	}
	return h.one(w, r, p, http.StatusCreated, apijson.ProjectOptions{})
}

// update is PUT /projects/:id.
func (h handlers) update(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	var bad httpx.Problems
	in, err := settingsInput(r, &bad)
	if err != nil {
		return err
	}
	bad.AtLeastOneOf(r, updateParams...)
	// Not edit parameters (the spec): the namespace moves by transfer.
	in.NamespaceID, in.PrintingMergeRequestLinkEnabled = nil, nil
	p, err := h.s.Update(r.Context(), httpx.CallerOf(r), ref, UpdateInput{Settings: in.settings(), Invalid: bad.Err()})
	if err != nil {
		return err
	}
	return h.one(w, r, p, http.StatusOK, apijson.ProjectOptions{})
}

// remove is DELETE /projects/:id: 202, the repository goes after commit.
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

// star is POST /projects/:id/star and /unstar: 201 with the project, 304
// when nothing changes.
func (h handlers) star(star bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		ref, err := httpx.RefParam(r, "id")
		if err != nil {
			return err
		}
		p, err := h.s.Star(r.Context(), httpx.CallerOf(r), ref, star)
		if err != nil {
			return err
		}
		return h.one(w, r, p, http.StatusCreated, apijson.ProjectOptions{})
	}
}

// archive is POST /projects/:id/archive and /unarchive: 201 with the project.
func (h handlers) archive(archived bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		ref, err := httpx.RefParam(r, "id")
		if err != nil {
			return err
		}
		p, err := h.s.SetArchived(r.Context(), httpx.CallerOf(r), ref, archived)
		if err != nil {
			return err
		}
		return h.one(w, r, p, http.StatusCreated, apijson.ProjectOptions{})
	}
}

// fork is POST /projects/:id/fork: 201 with the new project, import_status
// "scheduled".
func (h handlers) fork(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	var in struct {
		Namespace *string `param:"namespace"`
	}
	bad := httpx.Decode(r, &in)
	p, err := h.s.Fork(r.Context(), httpx.CallerOf(r), ref, ForkInput{Namespace: deref(in.Namespace, ""), Invalid: bad})
	if err != nil {
		return err
	}
	return h.one(w, r, p, http.StatusCreated, apijson.ProjectOptions{})
}

// share is POST /projects/:id/share: 201 with the link.
func (h handlers) share(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	var in shareParams
	var bad httpx.Problems
	if err := bad.Decode(r, &in); err != nil {
		return err
	}
	if in.GroupAccess != nil && !validShareLevel(*in.GroupAccess) {
		bad.Add("group_access does not have a valid value")
	}
	link, err := h.s.Share(r.Context(), httpx.CallerOf(r), ref, ShareInput{
		GroupID:   deref(in.GroupID, 0),
		Level:     domain.AccessLevel(deref(in.GroupAccess, 0)),
		ExpiresAt: in.ExpiresAt,
		Invalid:   bad.Err(),
	})
	if err != nil {
		return err
	}
	return httpx.Created(w, shareOf(link))
}

// unshare is DELETE /projects/:id/share/:group_id: 204.
func (h handlers) unshare(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	// A malformed group_id names no link: the service answers 404 "Group
	// Link Not Found" for it after the access checks.
	groupID, _ := httpx.IDParam(r, "group_id", "Group Link")
	if err := h.s.Unshare(r.Context(), httpx.CallerOf(r), ref, groupID); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

// namespaces is GET /namespaces.
func (h handlers) namespaces(w http.ResponseWriter, r *http.Request) error {
	search, pg, bad := searchPage(r)
	list, total, err := h.s.Namespaces(r.Context(), httpx.CallerOf(r), NamespacesInput{Search: search, Page: pg, Invalid: bad})
	if err != nil {
		return err
	}
	out := make([]namespaceJSON, len(list))
	for i := range list {
		out[i] = namespaceOf(&list[i])
	}
	return httpx.Paginated(w, r, out, total, pg)
}

// listInput decodes and checks the project list filters, and the
// rendering they ask for.
func listInput(r *http.Request) (ListInput, apijson.ProjectOptions, error) {
	var in listParams
	var bad httpx.Problems
	if err := bad.Decode(r, &in); err != nil {
		return ListInput{}, apijson.ProjectOptions{}, err
	}
	bad.OneOf("order_by", in.OrderBy, orders...)
	bad.OneOf("sort", in.Sort, "asc", "desc")
	bad.OneOf("visibility", in.Visibility, visibilities...)
	if err := bad.Err(); err != nil {
		return ListInput{}, apijson.ProjectOptions{}, err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return ListInput{}, apijson.ProjectOptions{}, err
	}
	return in.input(pg), apijson.ProjectOptions{Simple: deref(in.Simple, false), Statistics: deref(in.Statistics, false)}, nil
}

// settingsInput decodes the project parameters, recording their problems.
func settingsInput(r *http.Request, bad *httpx.Problems) (settingsParams, error) {
	var in settingsParams
	if err := bad.Decode(r, &in); err != nil {
		return in, err
	}
	bad.OneOf("visibility", in.Visibility, visibilities...)
	if in.Avatar != nil {
		bad.Add("avatar is invalid")
	}
	return in, nil
}

// searchPage reads search and the page; bad is the first problem.
func searchPage(r *http.Request) (search string, pg domain.Page, bad error) {
	var in struct {
		Search *string `param:"search"`
	}
	if bad = httpx.Decode(r, &in); bad != nil {
		return "", pg, bad
	}
	pg, bad = httpx.PageOf(r)
	return deref(in.Search, ""), pg, bad
}
