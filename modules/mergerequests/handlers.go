package mergerequests

import (
	"net/http"

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
	mrs    *apijson.MergeRequestPresenter
	issues *apijson.IssuePresenter
	todos  *apijson.TodoPresenter
}

// GET /projects/:id/merge_requests/:iid
func (h handlers) get(w http.ResponseWriter, r *http.Request) error {
	m, err := h.s.Get(r.Context(), httpx.CallerOf(r), refOf(r), iid(r))
	return h.reply(w, r, http.StatusOK, m, err)
}

// POST /projects/:id/merge_requests
func (h handlers) create(w http.ResponseWriter, r *http.Request) error {
	var in CreateInput
	in.Invalid = httpx.Decode(r, &in)
	m, err := h.s.Create(r.Context(), httpx.CallerOf(r), refOf(r), in)
	return h.reply(w, r, http.StatusCreated, m, err)
}

// PUT /projects/:id/merge_requests/:iid
func (h handlers) update(w http.ResponseWriter, r *http.Request) error {
	var in UpdateInput
	in.Invalid = httpx.Decode(r, &in)
	m, err := h.s.Update(r.Context(), httpx.CallerOf(r), refOf(r), iid(r), in)
	return h.reply(w, r, http.StatusOK, m, err)
}

// DELETE /projects/:id/merge_requests/:iid
func (h handlers) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.s.Delete(r.Context(), httpx.CallerOf(r), refOf(r), iid(r)); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

// PUT /projects/:id/merge_requests/:iid/merge
func (h handlers) merge(w http.ResponseWriter, r *http.Request) error {
	var in MergeInput
	in.Invalid = httpx.Decode(r, &in)
	m, err := h.s.Merge(r.Context(), httpx.CallerOf(r), refOf(r), iid(r), in)
	return h.reply(w, r, http.StatusOK, m, err)
}

// PUT (or POST) /projects/:id/merge_requests/:iid/cancel_merge_when_pipeline_succeeds
func (h handlers) cancelMerge(w http.ResponseWriter, r *http.Request) error {
	m, err := h.s.CancelMerge(r.Context(), httpx.CallerOf(r), refOf(r), iid(r))
	return h.reply(w, r, http.StatusOK, m, err)
}

// POST .../subscribe and .../unsubscribe: 304 when nothing changes.
func (h handlers) subscribe(want bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		m, err := h.s.Subscribe(r.Context(), httpx.CallerOf(r), refOf(r), iid(r), want)
		return h.reply(w, r, http.StatusCreated, m, err)
	}
}

// POST .../todo: a "marked" todo for the caller; 304 when one is pending.
func (h handlers) todo(w http.ResponseWriter, r *http.Request) error {
	td, err := h.s.MarkTodo(r.Context(), httpx.CallerOf(r), refOf(r), iid(r))
	if err != nil {
		return err
	}
	out, err := h.todos.Todos(r.Context(), httpx.CallerOf(r), []domain.Todo{*td})
	if err != nil {
		return err
	}
	return httpx.Created(w, out[0])
}

// GET .../commits
func (h handlers) commits(w http.ResponseWriter, r *http.Request) error {
	in := pageOf(r)
	list, total, err := h.s.Commits(r.Context(), httpx.CallerOf(r), refOf(r), iid(r), in)
	if err != nil {
		return err
	}
	out := make([]commitJSON, 0, len(list))
	for _, c := range list {
		out = append(out, newCommitJSON(c))
	}
	return httpx.Paginated(w, r, out, total, in.Page)
}

// GET .../changes
func (h handlers) changes(w http.ResponseWriter, r *http.Request) error {
	m, diffs, err := h.s.Changes(r.Context(), httpx.CallerOf(r), refOf(r), iid(r))
	if err != nil {
		return err
	}
	out, err := h.mrs.One(r.Context(), httpx.CallerOf(r), m)
	if err != nil {
		return err
	}
	return httpx.OK(w, changesJSON{MergeRequest: out, Changes: apijson.DiffsOf(diffs)})
}

// GET .../closes_issues
func (h handlers) closesIssues(w http.ResponseWriter, r *http.Request) error {
	in := pageOf(r)
	list, total, err := h.s.ClosesIssues(r.Context(), httpx.CallerOf(r), refOf(r), iid(r), in)
	if err != nil {
		return err
	}
	out, err := h.issues.Render(r.Context(), httpx.CallerOf(r), list)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, out, total, in.Page)
}

// GET /projects/:id/merge_requests
func (h handlers) list(w http.ResponseWriter, r *http.Request) error {
	in := decodeList(r)
	list, total, t, err := h.s.List(r.Context(), httpx.CallerOf(r), refOf(r), in)
	return h.replyList(w, r, in, t.Project, t.Namespaces, list, total, err)
}

// GET /merge_requests
func (h handlers) listAll(w http.ResponseWriter, r *http.Request) error {
	in := decodeList(r)
	list, total, err := h.s.ListAll(r.Context(), httpx.CallerOf(r), in)
	return h.replyList(w, r, in, nil, nil, list, total, err)
}

func decodeList(r *http.Request) ListInput {
	var in ListInput
	pg, pgErr := httpx.PageOf(r)
	in.Page, in.Invalid = pg, issuable.FirstError(httpx.Decode(r, &in.ListParams), httpx.Decode(r, &in), pgErr)
	return in
}

// replyList renders a page of merge requests in the asked view; proj,
// when not nil, is the project they all belong to, which the access check
// read with namespaces nss.
func (h handlers) replyList(w http.ResponseWriter, r *http.Request, in ListInput, proj *domain.Project, nss []domain.Namespace, list []domain.MergeRequest, total int, err error) error {
	if err != nil {
		return err
	}
	if in.View == "simple" {
		out, err := h.mrs.RenderSimple(r.Context(), list)
		if err != nil {
			return err
		}
		return httpx.Paginated(w, r, out, total, in.Page)
	}
	var out []apijson.MergeRequest
	if proj != nil {
		out, err = h.mrs.RenderIn(r.Context(), httpx.CallerOf(r), proj, nss, list)
	} else {
		out, err = h.mrs.Render(r.Context(), httpx.CallerOf(r), list)
	}
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, out, total, in.Page)
}

// reply renders the merge request a use case returned, with status.
func (h handlers) reply(w http.ResponseWriter, r *http.Request, status int, m *domain.MergeRequest, err error) error {
	if err != nil {
		return err
	}
	out, err := h.mrs.One(r.Context(), httpx.CallerOf(r), m)
	if err != nil {
		return err
	}
	return httpx.JSON(w, status, out)
}

// refOf reads {id}; the zero reference when the path names no project
// (the use case's 400, after any 401).
func refOf(r *http.Request) domain.IDOrPath {
	ref, _ := httpx.RefParam(r, "id")
	return ref
}

// iid reads {merge_request_iid}; 0, which names nothing (the use case's
// 404), when it is not a positive number.
func iid(r *http.Request) int64 {
	n, err := httpx.IDParam(r, "merge_request_iid", "Merge Request")
	if err != nil {
		return 0
	}
	return n
}

func pageOf(r *http.Request) issuable.PageInput {
	pg, err := httpx.PageOf(r)
	return issuable.PageInput{Page: pg, Invalid: err}
}
