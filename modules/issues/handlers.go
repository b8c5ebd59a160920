package issues

import (
	"net/http"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/issuable"
)

// handlers decode, call the service and render.
type handlers struct{ s *Service }

func (h handlers) routes() []httpx.Route {
	const base = "/projects/{id}/issues"
	const one = base + "/{issue_iid}"
	const milestones = "/projects/{id}/milestones"
	const milestone = milestones + "/{milestone_id}"
	const labels = "/projects/{id}/labels"
	return []httpx.Route{
		{Method: http.MethodGet, Pattern: "/issues", Handle: h.listAll},
		{Method: http.MethodGet, Pattern: base, Handle: h.list},
		{Method: http.MethodPost, Pattern: base, Handle: h.create},
		{Method: http.MethodGet, Pattern: one, Handle: h.get},
		{Method: http.MethodPut, Pattern: one, Handle: h.update},
		{Method: http.MethodDelete, Pattern: one, Handle: h.delete},
		{Method: http.MethodPost, Pattern: one + "/subscribe", Handle: h.subscribe},
		{Method: http.MethodPost, Pattern: one + "/unsubscribe", Handle: h.unsubscribe},
		{Method: http.MethodPost, Pattern: one + "/todo", Handle: h.todo},

		{Method: http.MethodGet, Pattern: milestones, Handle: h.listMilestones},
		{Method: http.MethodPost, Pattern: milestones, Handle: h.createMilestone},
		{Method: http.MethodGet, Pattern: milestone, Handle: h.getMilestone},
		{Method: http.MethodPut, Pattern: milestone, Handle: h.updateMilestone},
		{Method: http.MethodDelete, Pattern: milestone, Handle: h.deleteMilestone},
		{Method: http.MethodGet, Pattern: milestone + "/issues", Handle: h.milestoneIssues},
		{Method: http.MethodGet, Pattern: milestone + "/merge_requests", Handle: h.milestoneMergeRequests},

		{Method: http.MethodGet, Pattern: labels, Handle: h.listLabels},
		{Method: http.MethodPost, Pattern: labels, Handle: h.createLabel},
		{Method: http.MethodPut, Pattern: labels, Handle: h.updateLabel},
		{Method: http.MethodDelete, Pattern: labels, Handle: h.deleteLabel},
	}
}

// loaded resolves the project for a write (401, then 404) and loads
// {issue_iid} if the caller may see it.
func (h handlers) loaded(r *http.Request) (target, *domain.Issue, error) {
	t, err := h.s.signedIn(r)
	if err != nil {
		return t, nil, err
	}
	is, err := h.s.load(r, t)
	return t, is, err
}

// reply renders an issue with status.
func (h handlers) reply(w http.ResponseWriter, r *http.Request, status int, is *domain.Issue) error {
	out, err := h.s.render(r, is)
	if err != nil {
		return err
	}
	return httpx.JSON(w, status, out)
}

// GET /projects/:id/issues/:issue_iid
func (h handlers) get(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.project(r)
	if err != nil {
		return err
	}
	is, err := h.s.load(r, t)
	if err != nil {
		return err
	}
	return h.reply(w, r, http.StatusOK, is)
}

// POST /projects/:id/issues
func (h handlers) create(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.signedIn(r)
	if err != nil {
		return err
	}
	var in createParams
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	is, err := h.s.create(r.Context(), t, in)
	if err != nil {
		return err
	}
	return h.reply(w, r, http.StatusCreated, is)
}

// PUT /projects/:id/issues/:issue_iid
func (h handlers) update(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.signedIn(r)
	if err != nil {
		return err
	}
	var in updateParams
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	if err := in.validate(); err != nil {
		return err
	}
	is, err := h.s.load(r, t)
	if err != nil {
		return err
	}
	if !t.canUpdate(is) {
		return core.Forbidden("")
	}
	if is, err = h.s.update(r.Context(), t, is, in); err != nil {
		return err
	}
	return h.reply(w, r, http.StatusOK, is)
}

// DELETE /projects/:id/issues/:issue_iid: owners and administrators.
func (h handlers) delete(w http.ResponseWriter, r *http.Request) error {
	t, is, err := h.loaded(r)
	if err != nil {
		return err
	}
	if !t.rights.AtLeast(domain.Owner) {
		return core.Forbidden("")
	}
	if err := h.s.delete(r.Context(), is); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

// POST .../subscribe and .../unsubscribe: 304 when nothing changes.
func (h handlers) subscribe(w http.ResponseWriter, r *http.Request) error {
	return h.setSubscription(w, r, true)
}

func (h handlers) unsubscribe(w http.ResponseWriter, r *http.Request) error {
	return h.setSubscription(w, r, false)
}

func (h handlers) setSubscription(w http.ResponseWriter, r *http.Request, want bool) error {
	t, is, err := h.loaded(r)
	if err != nil {
		return err
	}
	changed, err := issuable.Subscribe(r.Context(), h.s.p.Subscriptions, subject(is), is.AuthorID, is.AssigneeID,
		t.caller.UserID(), want)
	if err != nil {
		return err
	}
	if !changed {
		return &core.Error{Kind: core.ErrNotModified}
	}
	return h.reply(w, r, http.StatusCreated, is)
}

// POST .../todo: a "marked" todo for the caller; 304 when one is pending.
func (h handlers) todo(w http.ResponseWriter, r *http.Request) error {
	t, is, err := h.loaded(r)
	if err != nil {
		return err
	}
	uid := t.caller.UserID()
	td, created, err := issuable.AddTodo(r.Context(), h.s.p.Todos, subject(is), is.ProjectID, uid, uid, domain.TodoMarked,
		is.Title, h.s.now())
	if err != nil {
		return err
	}
	if !created {
		return &core.Error{Kind: core.ErrNotModified}
	}
	out, err := h.s.p.TodoPresenter.Todos(r.Context(), t.caller, []domain.Todo{*td})
	if err != nil {
		return err
	}
	return httpx.Created(w, out[0])
}
