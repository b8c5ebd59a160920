package issues

import (
	"github.com/hearth-forge/hearth/core/access"
	"net/http"
	"strconv"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/issuable"
)

// handlers decode a request, call one use case and render its result.
// Parameter problems travel in the input (Invalid) for the use case to
// report once the caller's access is known.
type handlers struct {
	s      *Service
	issues *apijson.IssuePresenter
	mrs    *apijson.MergeRequestPresenter
	todos  *apijson.TodoPresenter
}

// GET /projects/:id/issues/:issue_iid
func (h handlers) get(w http.ResponseWriter, r *http.Request) error {
	is, t, err := h.s.Get(r.Context(), httpx.CallerOf(r), refOf(r), pathID(r, "issue_iid"))
	return h.reply(w, r, http.StatusOK, is, t, err)
}

// POST /projects/:id/issues
func (h handlers) create(w http.ResponseWriter, r *http.Request) error {
	var in CreateInput
	in.Invalid = httpx.Decode(r, &in)
	is, t, err := h.s.Create(r.Context(), httpx.CallerOf(r), refOf(r), in)
	return h.reply(w, r, http.StatusCreated, is, t, err)
}

// PUT /projects/:id/issues/:issue_iid
func (h handlers) update(w http.ResponseWriter, r *http.Request) error {
	var in UpdateInput
	in.Invalid = httpx.Decode(r, &in)
	is, t, err := h.s.Update(r.Context(), httpx.CallerOf(r), refOf(r), pathID(r, "issue_iid"), in)
	return h.reply(w, r, http.StatusOK, is, t, err)
}

// DELETE /projects/:id/issues/:issue_iid
func (h handlers) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.s.Delete(r.Context(), httpx.CallerOf(r), refOf(r), pathID(r, "issue_iid")); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

// POST /projects/:id/issues/:issue_iid/move: the new issue, rendered in
// its project.
func (h handlers) move(w http.ResponseWriter, r *http.Request) error {
	var in MoveInput
	in.Invalid = httpx.Decode(r, &in)
	is, t, err := h.s.Move(r.Context(), httpx.CallerOf(r), refOf(r), pathID(r, "issue_iid"), in)
	return h.reply(w, r, http.StatusCreated, is, t, err)
}

// POST .../subscribe and .../unsubscribe: 304 when nothing changes.
func (h handlers) subscribe(want bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		is, t, err := h.s.Subscribe(r.Context(), httpx.CallerOf(r), refOf(r), pathID(r, "issue_iid"), want)
		return h.reply(w, r, http.StatusCreated, is, t, err)
	}
}

// POST .../todo: a "marked" todo for the caller; 304 when one is pending.
func (h handlers) todo(w http.ResponseWriter, r *http.Request) error {
	td, err := h.s.MarkTodo(r.Context(), httpx.CallerOf(r), refOf(r), pathID(r, "issue_iid"))
	if err != nil {
		return err
	}
	out, err := h.todos.Todos(r.Context(), httpx.CallerOf(r), []domain.Todo{*td})
	if err != nil {
		return err
	}
	return httpx.Created(w, out[0])
}

// GET /projects/:id/issues
func (h handlers) list(w http.ResponseWriter, r *http.Request) error {
	in := decodeList(r)
	list, total, t, err := h.s.List(r.Context(), httpx.CallerOf(r), refOf(r), in)
	if err != nil {
		return err
	}
	out, err := h.issues.RenderIn(r.Context(), httpx.CallerOf(r), t.Project, t.Namespaces, list)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, out, total, in.Page)
}

// GET /issues
func (h handlers) listAll(w http.ResponseWriter, r *http.Request) error {
	in := decodeList(r)
	list, total, err := h.s.ListAll(r.Context(), httpx.CallerOf(r), in)
	return h.replyList(w, r, list, total, in.Page, err)
}

// GET /groups/:id/issues
func (h handlers) listGroup(w http.ResponseWriter, r *http.Request) error {
	in := decodeList(r)
	list, total, err := h.s.ListGroup(r.Context(), httpx.CallerOf(r), refOf(r), in)
	return h.replyList(w, r, list, total, in.Page, err)
}

func decodeList(r *http.Request) ListInput {
	var in ListInput
	pg, pgErr := httpx.PageOf(r)
	in.Page, in.Invalid = pg, issuable.FirstError(httpx.Decode(r, &in.ListParams), httpx.Decode(r, &in), pgErr)
	return in
}

// reply renders the issue a use case returned, with status.
// reply renders one issue of the project t resolved, which is not read
// again.
func (h handlers) reply(w http.ResponseWriter, r *http.Request, status int, is *domain.Issue, t access.Target, err error) error {
	if err != nil {
		return err
	}
	out, err := h.issues.RenderIn(r.Context(), httpx.CallerOf(r), t.Project, t.Namespaces, []domain.Issue{*is})
	if err != nil {
		return err
	}
	return httpx.JSON(w, status, out[0])
}

// replyList renders a page of issues.
func (h handlers) replyList(w http.ResponseWriter, r *http.Request, list []domain.Issue, total int, pg domain.Page, err error) error {
	if err != nil {
		return err
	}
	out, err := h.issues.Render(r.Context(), httpx.CallerOf(r), list)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, out, total, pg)
}

// refOf reads {id}; the zero reference when the path names no project
// (the use case's 400, after any 401).
func refOf(r *http.Request) domain.IDOrPath {
	ref, _ := httpx.RefParam(r, "id")
	return ref
}

// pathID reads a positive number in canonical form from the path; 0,
// which names nothing (the use case's 404), otherwise.
func pathID(r *http.Request, name string) int64 {
	raw, _ := httpx.PathParam(r, name)
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n <= 0 || strconv.FormatInt(n, 10) != raw {
		return 0
	}
	return n
}
