package mergerequests

import (
	"errors"
	"net/http"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/issuable"
)

// handlers decode, call the service and render.
type handlers struct{ s *Service }

func (h handlers) routes() []httpx.Route {
	const base = "/projects/{id}/merge_requests"
	const one = base + "/{merge_request_iid}"
	return []httpx.Route{
		{Method: http.MethodGet, Pattern: "/merge_requests", Handle: h.listAll},
		{Method: http.MethodGet, Pattern: base, Handle: h.list},
		{Method: http.MethodPost, Pattern: base, Handle: h.create},
		{Method: http.MethodGet, Pattern: one, Handle: h.get},
		{Method: http.MethodPut, Pattern: one, Handle: h.update},
		{Method: http.MethodDelete, Pattern: one, Handle: h.delete},
		{Method: http.MethodGet, Pattern: one + "/commits", Handle: h.commits},
		{Method: http.MethodGet, Pattern: one + "/changes", Handle: h.changes},
		{Method: http.MethodPut, Pattern: one + "/merge", Handle: h.merge},
		{Method: http.MethodPut, Pattern: one + "/cancel_merge_when_pipeline_succeeds", Handle: h.cancelMerge},
		// Later GitLab releases, and go-gitlab, cancel with POST.
		{Method: http.MethodPost, Pattern: one + "/cancel_merge_when_pipeline_succeeds", Handle: h.cancelMerge},
		{Method: http.MethodGet, Pattern: one + "/closes_issues", Handle: h.closesIssues},
		{Method: http.MethodPost, Pattern: one + "/subscribe", Handle: h.subscribe},
		{Method: http.MethodPost, Pattern: one + "/unsubscribe", Handle: h.unsubscribe},
		{Method: http.MethodPost, Pattern: one + "/todo", Handle: h.todo},
	}
}

// loaded resolves the project for a write (401, then 404) and loads
// {merge_request_iid} as stored.
func (h handlers) loaded(r *http.Request) (target, *domain.MergeRequest, error) {
	t, err := h.s.signedIn(r)
	if err != nil {
		return t, nil, err
	}
	m, err := h.s.load(r, t)
	return t, m, err
}

// reply renders a merge request with status.
func (h handlers) reply(w http.ResponseWriter, r *http.Request, status int, m *domain.MergeRequest) error {
	out, err := h.s.render(r, m)
	if err != nil {
		return err
	}
	return httpx.JSON(w, status, out)
}

// fresh loads {merge_request_iid} and brings it up to date with git.
func (h handlers) fresh(r *http.Request, t target) (*domain.MergeRequest, error) {
	m, err := h.s.load(r, t)
	if err != nil {
		return nil, err
	}
	return h.s.refresh(r.Context(), m, 0)
}

// GET /projects/:id/merge_requests/:iid
func (h handlers) get(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.project(r)
	if err != nil {
		return err
	}
	m, err := h.fresh(r, t)
	if err != nil {
		return err
	}
	return h.reply(w, r, http.StatusOK, m)
}

// POST /projects/:id/merge_requests
func (h handlers) create(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.signedIn(r)
	if err != nil {
		return err
	}
	var in createParams
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	m, err := h.s.create(r.Context(), t, in)
	if err != nil {
		return err
	}
	return h.reply(w, r, http.StatusCreated, m)
}

// PUT /projects/:id/merge_requests/:iid
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
	m, err := h.fresh(r, t)
	if err != nil {
		return err
	}
	if !t.canUpdate(m) || t.project.Archived {
		return core.Forbidden("")
	}
	if m, err = h.s.update(r.Context(), t, m, in); err != nil {
		return err
	}
	return h.reply(w, r, http.StatusOK, m)
}

// DELETE /projects/:id/merge_requests/:iid: owners and administrators.
func (h handlers) delete(w http.ResponseWriter, r *http.Request) error {
	t, m, err := h.loaded(r)
	if err != nil {
		return err
	}
	if !t.rights.AtLeast(domain.Owner) {
		return core.Forbidden("")
	}
	if err := h.s.delete(r.Context(), m); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

// PUT /projects/:id/merge_requests/:iid/merge
func (h handlers) merge(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.signedIn(r)
	if err != nil {
		return err
	}
	var in struct {
		Message      string `param:"merge_commit_message"`
		RemoveSource bool   `param:"should_remove_source_branch"`
		WhenPipeline bool   `param:"merge_when_pipeline_succeeds"`
		SHA          string `param:"sha"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	m, err := h.s.load(r, t)
	if err != nil {
		return err
	}
	m, err = h.s.merge(r.Context(), t, m, mergeOptions{message: in.Message, removeSource: in.RemoveSource,
		sha: strings.TrimSpace(in.SHA), whenPipeline: in.WhenPipeline})
	if err != nil {
		return err
	}
	return h.reply(w, r, http.StatusOK, m)
}

// PUT /projects/:id/merge_requests/:iid/cancel_merge_when_pipeline_succeeds
func (h handlers) cancelMerge(w http.ResponseWriter, r *http.Request) error {
	t, m, err := h.loaded(r)
	if err != nil {
		return err
	}
	if m, err = h.s.cancelWhenPipeline(r.Context(), t, m); err != nil {
		return err
	}
	return h.reply(w, r, http.StatusOK, m)
}

// POST .../subscribe and .../unsubscribe: 304 when nothing changes.
func (h handlers) subscribe(w http.ResponseWriter, r *http.Request) error {
	return h.setSubscription(w, r, true)
}

func (h handlers) unsubscribe(w http.ResponseWriter, r *http.Request) error {
	return h.setSubscription(w, r, false)
}

func (h handlers) setSubscription(w http.ResponseWriter, r *http.Request, want bool) error {
	t, m, err := h.loaded(r)
	if err != nil {
		return err
	}
	changed, err := issuable.Subscribe(r.Context(), h.s.p.Subscriptions, subject(m), m.AuthorID, m.AssigneeID,
		t.caller.UserID(), want)
	if err != nil {
		return err
	}
	if !changed {
		return &core.Error{Kind: core.ErrNotModified}
	}
	return h.reply(w, r, http.StatusCreated, m)
}

// POST .../todo: a "marked" todo for the caller; 304 when one is pending.
func (h handlers) todo(w http.ResponseWriter, r *http.Request) error {
	t, m, err := h.loaded(r)
	if err != nil {
		return err
	}
	uid := t.caller.UserID()
	td, created, err := issuable.AddTodo(r.Context(), h.s.p.Todos, subject(m), m.ProjectID, uid, uid, domain.TodoMarked,
		m.Title, h.s.now())
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

// GET .../commits: the source's commits not in the target, newest first.
func (h handlers) commits(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.project(r)
	if err != nil {
		return err
	}
	m, err := h.fresh(r, t)
	if err != nil {
		return err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	out := []commitJSON{}
	if m.SourceSHA == "" {
		return httpx.Paginated(w, r, out, 0, pg)
	}
	q := domain.LogQuery{Ref: m.SourceSHA}
	if m.TargetSHA != "" {
		q.Exclude = []string{m.TargetSHA}
	}
	ctx, repo := r.Context(), repoOf(m.SourceProjectID)
	total, err := h.s.p.Repos.CountCommits(ctx, repo, q)
	if errors.Is(err, core.ErrNotFound) {
		return httpx.Paginated(w, r, out, 0, pg)
	}
	if err != nil {
		return backendErr(err, "count merge request commits")
	}
	if pg.Offset() < total {
		q.Skip, q.Limit = pg.Offset(), pg.PerPage
		list, err := h.s.p.Repos.Log(ctx, repo, q)
		if err != nil {
			return backendErr(err, "list merge request commits")
		}
		for _, c := range list {
			out = append(out, newCommitJSON(c))
		}
	}
	return httpx.Paginated(w, r, out, total, pg)
}

// GET .../changes: the merge request with the diff of its source against
// the merge base.
func (h handlers) changes(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.project(r)
	if err != nil {
		return err
	}
	m, err := h.fresh(r, t)
	if err != nil {
		return err
	}
	out, err := h.s.render(r, m)
	if err != nil {
		return err
	}
	diffs := []diffJSON{}
	if m.SourceSHA != "" && m.BaseSHA != "" && m.BaseSHA != m.SourceSHA {
		fd, err := h.s.p.Repos.Diff(r.Context(), repoOf(m.SourceProjectID), m.BaseSHA, m.SourceSHA)
		if err != nil && !errors.Is(err, core.ErrNotFound) {
			return backendErr(err, "merge request changes")
		}
		diffs = newDiffsJSON(fd)
	}
	return httpx.OK(w, changesJSON{MergeRequest: out, Changes: diffs})
}

// GET .../closes_issues
func (h handlers) closesIssues(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.project(r)
	if err != nil {
		return err
	}
	m, err := h.fresh(r, t)
	if err != nil {
		return err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	issues, err := h.s.closesIssues(r.Context(), r, t, m)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, pageOf(issues, pg), len(issues), pg)
}

// pageOf slices one page out of a full list.
func pageOf[T any](all []T, pg domain.Page) []T {
	from := min(pg.Offset(), len(all))
	to := min(from+pg.PerPage, len(all))
	return append(make([]T, 0, to-from), all[from:to]...)
}
