package projects

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// handlers decode, call the service and render. Reads are open to
// anonymous callers (who see public projects); writes need a user (401)
// before anything else, then a readable project (404), then the rights
// (403), and only then are parameters validated (400), so callers who may
// not use an endpoint learn nothing from its validation.
type handlers struct{ s *Service }

// problems collects request-validation messages into one GitLab 400
// ({"error":"a is missing, b does not have a valid value"}).
type problems []string

// decode fills dst and records its request-validation problems; other
// failures (a malformed or oversized body) are returned.
func (p *problems) decode(r *http.Request, dst any) error {
	err := httpx.Decode(r, dst)
	if err == nil {
		return nil
	}
	var e *core.Error
	if errors.As(err, &e) && e.Param {
		*p = append(*p, e.Msg)
		return nil
	}
	return err
}

// oneOf is Grape's `values:` check.
func (p *problems) oneOf(name string, got *string, allowed ...string) {
	if got == nil {
		return
	}
	for _, a := range allowed {
		if *got == a {
			return
		}
	}
	*p = append(*p, name+" does not have a valid value")
}

func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: strings.Join(p, ", ")}
}

var (
	visibilities = []string{string(domain.Private), string(domain.Internal), string(domain.Public)}
	orders       = []string{"id", "name", "path", "created_at", "updated_at", "last_activity_at"}
)

// projectRef resolves {id} to a project the caller may read, with rights.
func (h handlers) projectRef(r *http.Request) (*domain.Project, access.Rights, error) {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return nil, access.Rights{}, err
	}
	return h.s.Project(r.Context(), httpx.CallerOf(r), ref.ID, ref.Path)
}

// writable is a write endpoint's preamble: a user (401), then a readable
// project (404).
func (h handlers) writable(r *http.Request) (*domain.Caller, *domain.Project, access.Rights, error) {
	caller, err := httpx.RequireUser(r)
	if err != nil {
		return nil, nil, access.Rights{}, err
	}
	p, rights, err := h.projectRef(r)
	if err != nil {
		return nil, nil, access.Rights{}, err
	}
	return caller, p, rights, nil
}

// one renders a single project (201 for creations and toggles).
func (h handlers) one(w http.ResponseWriter, r *http.Request, p *domain.Project, status int, opt apijson.ProjectOptions) error {
	out, err := h.s.Presenter().One(r.Context(), httpx.CallerOf(r), p, opt)
	if err != nil {
		return err
	}
	return httpx.JSON(w, status, out)
}

// listInput decodes and checks the project list filters.
func listInput(r *http.Request) (ListInput, listParams, error) {
	var in listParams
	var bad problems
	if err := bad.decode(r, &in); err != nil {
		return ListInput{}, in, err
	}
	bad.oneOf("order_by", in.OrderBy, orders...)
	bad.oneOf("sort", in.Sort, "asc", "desc")
	bad.oneOf("visibility", in.Visibility, visibilities...)
	if err := bad.err(); err != nil {
		return ListInput{}, in, err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return ListInput{}, in, err
	}
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
	}, in, nil
}

// renderList writes a page of projects: simple ones with simple=true,
// statistics when asked.
func (h handlers) renderList(w http.ResponseWriter, r *http.Request, list []domain.Project, total int, pg domain.Page, in listParams) error {
	out, err := h.s.Presenter().Render(r.Context(), httpx.CallerOf(r), list, apijson.ProjectOptions{
		Simple: deref(in.Simple, false), Statistics: deref(in.Statistics, false),
	})
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, out, total, pg)
}

// list is GET /projects.
func (h handlers) list(w http.ResponseWriter, r *http.Request) error {
	in, params, err := listInput(r)
	if err != nil {
		return err
	}
	list, total, err := h.s.List(r.Context(), httpx.CallerOf(r), in)
	if err != nil {
		return err
	}
	return h.renderList(w, r, list, total, in.Page, params)
}

// userProjects is GET /users/:user_id/projects.
func (h handlers) userProjects(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.PathParam(r, "user_id")
	if err != nil {
		return err
	}
	in, params, err := listInput(r)
	if err != nil {
		return err
	}
	u, err := h.s.UserByRef(r.Context(), ref)
	if err != nil {
		return err
	}
	list, total, err := h.s.UserProjects(r.Context(), httpx.CallerOf(r), u, in)
	if err != nil {
		return err
	}
	return h.renderList(w, r, list, total, in.Page, params)
}

// get is GET /projects/:id, with the caller's permissions when signed in.
func (h handlers) get(w http.ResponseWriter, r *http.Request) error {
	p, _, err := h.projectRef(r)
	if err != nil {
		return err
	}
	var in struct {
		Statistics *bool `param:"statistics"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	caller := httpx.CallerOf(r)
	return h.one(w, r, p, http.StatusOK, apijson.ProjectOptions{
		Statistics: deref(in.Statistics, false), Permissions: caller.UserID() != 0,
	})
}

// users is GET /projects/:id/users.
func (h handlers) users(w http.ResponseWriter, r *http.Request) error {
	p, _, err := h.projectRef(r)
	if err != nil {
		return err
	}
	var in struct {
		Search *string `param:"search"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	list, total, err := h.s.Users(r.Context(), p, deref(in.Search, ""), pg)
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

// settingsInput decodes the project parameters and checks their values.
func settingsInput(r *http.Request, bad *problems) (settingsParams, error) {
	var in settingsParams
	if err := bad.decode(r, &in); err != nil {
		return in, err
	}
	bad.oneOf("visibility", in.Visibility, visibilities...)
	if in.Avatar != nil {
		*bad = append(*bad, "avatar is invalid")
	}
	return in, nil
}

// create is POST /projects: 201 with the project.
func (h handlers) create(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireUser(r)
	if err != nil {
		return err
	}
	var bad problems
	in, err := settingsInput(r, &bad)
	if err != nil {
		return err
	}
	params, err := httpx.ParamsOf(r)
	if err != nil {
		return err
	}
	if !params.Has("name") && !params.Has("path") {
		bad = append(bad, "name, path are missing, at least one parameter must be provided")
	}
	if err := bad.err(); err != nil {
		return err
	}
	in.DefaultBranch = nil // not a create parameter (GitLab 9.x, the spec)
	p, err := h.s.Create(r.Context(), caller, caller.User, CreateInput{Settings: in.settings(), NamespaceID: in.NamespaceID}, false)
	if err != nil {
		return err
	}
	return h.one(w, r, p, http.StatusCreated, apijson.ProjectOptions{})
}

// createForUser is POST /projects/user/:user_id (administrators).
func (h handlers) createForUser(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireAdmin(r)
	if err != nil {
		return err
	}
	var bad problems
	raw, err := httpx.PathParam(r, "user_id")
	if err != nil {
		return err
	}
	userID, perr := strconv.ParseInt(raw, 10, 64)
	if perr != nil {
		bad = append(bad, "user_id is invalid")
	}
	in, err := settingsInput(r, &bad)
	if err != nil {
		return err
	}
	if in.Name == nil {
		bad = append([]string{"name is missing"}, bad...)
	}
	if err := bad.err(); err != nil {
		return err
	}
	owner, err := h.s.User(r.Context(), userID)
	if err != nil {
		return err
	}
	p, err := h.s.Create(r.Context(), caller, owner, CreateInput{Settings: in.settings(), NamespaceID: in.NamespaceID}, true)
	if err != nil {
		return err
	}
	return h.one(w, r, p, http.StatusCreated, apijson.ProjectOptions{})
}

// update is PUT /projects/:id.
func (h handlers) update(w http.ResponseWriter, r *http.Request) error {
	caller, p, rights, err := h.writable(r)
	if err != nil {
		return err
	}
	if err := CanAdmin(caller, rights); err != nil {
		return err
	}
	var bad problems
	in, err := settingsInput(r, &bad)
	if err != nil {
		return err
	}
	params, err := httpx.ParamsOf(r)
	if err != nil {
		return err
	}
	given := false
	for _, name := range updateParams {
		given = given || params.Has(name)
	}
	if !given {
		bad = append(bad, strings.Join(updateParams, ", ")+" are missing, at least one parameter must be provided")
	}
	if err := bad.err(); err != nil {
		return err
	}
	// Not edit parameters (the spec): the namespace moves by transfer.
	in.NamespaceID, in.PrintingMergeRequestLinkEnabled = nil, nil
	out, err := h.s.Update(r.Context(), caller, p, rights, in.settings())
	if err != nil {
		return err
	}
	return h.one(w, r, out, http.StatusOK, apijson.ProjectOptions{})
}

// remove is DELETE /projects/:id: 202, the repository goes after commit.
func (h handlers) remove(w http.ResponseWriter, r *http.Request) error {
	caller, p, rights, err := h.writable(r)
	if err != nil {
		return err
	}
	if err := h.s.Delete(r.Context(), caller, p, rights); err != nil {
		return err
	}
	return httpx.JSON(w, http.StatusAccepted, map[string]string{"message": "202 Accepted"})
}

// star is POST /projects/:id/star and /unstar: 201 with the project, 304
// when nothing changes.
func (h handlers) star(star bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, p, _, err := h.writable(r)
		if err != nil {
			return err
		}
		out, err := h.s.Star(r.Context(), caller, p, star)
		if err != nil {
			return err
		}
		return h.one(w, r, out, http.StatusCreated, apijson.ProjectOptions{})
	}
}

// archive is POST /projects/:id/archive and /unarchive: 201 with the project.
func (h handlers) archive(archived bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, p, rights, err := h.writable(r)
		if err != nil {
			return err
		}
		out, err := h.s.SetArchived(r.Context(), caller, p, rights, archived)
		if err != nil {
			return err
		}
		return h.one(w, r, out, http.StatusCreated, apijson.ProjectOptions{})
	}
}

// fork is POST /projects/:id/fork: 201 with the new project, import_status
// "scheduled".
func (h handlers) fork(w http.ResponseWriter, r *http.Request) error {
	caller, p, rights, err := h.writable(r)
	if err != nil {
		return err
	}
	if !canDownloadCode(p, rights) {
		return core.Forbidden("")
	}
	var in struct {
		Namespace *string `param:"namespace"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	out, err := h.s.Fork(r.Context(), caller, p, rights, deref(in.Namespace, ""))
	if err != nil {
		return err
	}
	return h.one(w, r, out, http.StatusCreated, apijson.ProjectOptions{})
}

// share is POST /projects/:id/share: 201 with the link.
func (h handlers) share(w http.ResponseWriter, r *http.Request) error {
	caller, p, rights, err := h.writable(r)
	if err != nil {
		return err
	}
	if err := CanAdmin(caller, rights); err != nil {
		return err
	}
	var in shareParams
	var bad problems
	if err := bad.decode(r, &in); err != nil {
		return err
	}
	if in.GroupAccess != nil && !validShareLevel(*in.GroupAccess) {
		bad = append(bad, "group_access does not have a valid value")
	}
	if err := bad.err(); err != nil {
		return err
	}
	link, err := h.s.Share(r.Context(), caller, p, rights, *in.GroupID, domain.AccessLevel(*in.GroupAccess), in.ExpiresAt)
	if err != nil {
		return err
	}
	return httpx.Created(w, shareOf(link))
}

func validShareLevel(n int) bool {
	for _, l := range ShareLevels {
		if int(l) == n {
			return true
		}
	}
	return false
}

// unshare is DELETE /projects/:id/share/:group_id: 204.
func (h handlers) unshare(w http.ResponseWriter, r *http.Request) error {
	caller, p, rights, err := h.writable(r)
	if err != nil {
		return err
	}
	if err := CanAdmin(caller, rights); err != nil {
		return err
	}
	groupID, err := httpx.IDParam(r, "group_id", "Group Link")
	if err != nil {
		return err
	}
	if err := h.s.Unshare(r.Context(), caller, p, rights, groupID); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

// namespaces is GET /namespaces.
func (h handlers) namespaces(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireUser(r)
	if err != nil {
		return err
	}
	var in struct {
		Search *string `param:"search"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	list, total, err := h.s.Namespaces(r.Context(), caller, deref(in.Search, ""), pg)
	if err != nil {
		return err
	}
	out := make([]namespaceJSON, len(list))
	for i := range list {
		out[i] = namespaceOf(&list[i])
	}
	return httpx.Paginated(w, r, out, total, pg)
}
