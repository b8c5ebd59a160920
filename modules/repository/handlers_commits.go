package repository

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// GET /projects/:id/repository/commits
func (h handlers) listCommits(w http.ResponseWriter, r *http.Request) error {
	var in ListCommitsInput
	var pg domain.Page
	q := decode(r, params(&in), page(&pg))
	l, err := h.s.ListCommits(r.Context(), q, in, pg)
	if err != nil {
		return err
	}
	out := mapAll(l.Commits, func(c domain.Commit) listedCommitJSON {
		return listedCommitJSON{commitJSON: newCommitJSON(c), Status: pipelineStatus(l.Pipelines, c.ID)}
	})
	return httpx.Paginated(w, r, out, l.Total, pg)
}

// GET /projects/:id/repository/commits/:sha
func (h handlers) getCommit(w http.ResponseWriter, r *http.Request) error {
	var sha string
	q := decode(r, pathParam("sha", &sha))
	c, err := h.s.GetCommit(r.Context(), q, sha)
	if err != nil {
		return err
	}
	return httpx.OK(w, newCommitDetailJSON(c))
}

// GET /projects/:id/repository/commits/:sha/diff answers every diff entry
// (GitLab 9.x), or one page of them when the client asks for a page.
func (h handlers) commitDiff(w http.ResponseWriter, r *http.Request) error {
	var sha string
	q := decode(r, pathParam("sha", &sha))
	diffs, err := h.s.CommitDiff(r.Context(), q, sha)
	if err != nil {
		return err
	}
	out := newDiffsJSON(diffs)
	p, err := httpx.ParamsOf(r)
	if err != nil {
		return err
	}
	if !p.Has("page") && !p.Has("per_page") {
		return httpx.OK(w, out)
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, pageOf(out, pg), len(out), pg)
}

// POST /projects/:id/repository/commits
func (h handlers) createCommit(w http.ResponseWriter, r *http.Request) error {
	var in CreateCommitInput
	q := decode(r, params(&in))
	c, err := h.s.CreateCommit(r.Context(), q, in)
	if err != nil {
		return err
	}
	return httpx.Created(w, newCommitDetailJSON(c))
}

// POST /projects/:id/repository/commits/:sha/cherry_pick answers a plain
// commit (no stats).
func (h handlers) cherryPick(w http.ResponseWriter, r *http.Request) error {
	var in CherryPickInput
	var sha string
	q := decode(r, params(&in), pathParam("sha", &sha))
	c, err := h.s.CherryPick(r.Context(), q, sha, in)
	if err != nil {
		return err
	}
	return httpx.Created(w, newCommitJSON(c))
}

// GET /projects/:id/repository/commits/:sha/comments
func (h handlers) listCommitComments(w http.ResponseWriter, r *http.Request) error {
	var pg domain.Page
	var sha string
	q := decode(r, page(&pg), pathParam("sha", &sha))
	list, total, err := h.s.ListCommitComments(r.Context(), q, sha, pg)
	if err != nil {
		return err
	}
	base := httpx.BaseURL(r)
	return httpx.Paginated(w, r, mapAll(list, func(n CommitNote) commitNoteJSON { return newCommitNoteJSON(base, n) }), total, pg)
}

// POST /projects/:id/repository/commits/:sha/comments
func (h handlers) createCommitComment(w http.ResponseWriter, r *http.Request) error {
	var in CommentInput
	var sha string
	q := decode(r, params(&in), pathParam("sha", &sha))
	n, err := h.s.CreateCommitComment(r.Context(), q, sha, in)
	if err != nil {
		return err
	}
	return httpx.Created(w, newCommitNoteJSON(httpx.BaseURL(r), n))
}
