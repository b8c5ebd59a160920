package runners

import (
	"context"
	"net/http"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// listInput decodes scope and pagination; a scope outside allowed is
// GitLab's 400, reported after the access checks.
func listInput(r *http.Request, allowed []string) (ListInput, error, error) {
	var q struct {
		Scope *string `param:"scope"`
	}
	var p httpx.Problems
	if err := p.Decode(r, &q); err != nil {
		return ListInput{}, nil, err
	}
	p.OneOf("scope", q.Scope, allowed...)
	pg, err := httpx.PageOf(r)
	if err != nil {
		return ListInput{}, nil, err
	}
	in := ListInput{Page: pg}
	if q.Scope != nil {
		in.Scope = *q.Scope
	}
	return in, p.Err(), nil
}

func (h handlers) listOwned(w http.ResponseWriter, r *http.Request) error {
	return h.list(w, r, httpx.RequireUser, ownedScopes, h.s.ListOwned)
}

func (h handlers) listAll(w http.ResponseWriter, r *http.Request) error {
	return h.list(w, r, httpx.RequireAdmin, allScopes, h.s.ListAll)
}

// list is GET /runners and /runners/all: who may ask, which scopes they
// may name, and the use case that lists.
func (h handlers) list(w http.ResponseWriter, r *http.Request, require func(*http.Request) (*domain.Caller, error),
	scopes []string, list func(context.Context, *domain.Caller, ListInput) ([]domain.Runner, int, error)) error {
	caller, err := require(r)
	if err != nil {
		return err
	}
	in, invalid, err := listInput(r, scopes)
	if err != nil {
		return err
	}
	if invalid != nil {
		return invalid
	}
	runners, total, err := list(r.Context(), caller, in)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, runnersOf(runners, h.s.now()), total, in.Page)
}

func (h handlers) get(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireUser(r)
	if err != nil {
		return err
	}
	id, err := httpx.IDParam(r, "runner_id", "Runner")
	if err != nil {
		return err
	}
	d, err := h.s.Get(r.Context(), caller, id)
	if err != nil {
		return err
	}
	return httpx.OK(w, detailsOf(d, h.s.now()))
}

func (h handlers) update(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireUser(r)
	if err != nil {
		return err
	}
	id, err := httpx.IDParam(r, "runner_id", "Runner")
	if err != nil {
		return err
	}
	var in UpdateRunnerInput
	var p httpx.Problems
	if err := p.Decode(r, &in); err != nil {
		return err
	}
	p.OneOf("access_level", in.AccessLevel, accessLevels...)
	p.AtLeastOneOf(r, "description", "active", "paused", "tag_list", "run_untagged", "locked", "access_level", "maximum_timeout")
	d, err := h.s.Update(r.Context(), caller, id, in, p.Err())
	if err != nil {
		return err
	}
	return httpx.OK(w, detailsOf(d, h.s.now()))
}

func (h handlers) delete(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireUser(r)
	if err != nil {
		return err
	}
	id, err := httpx.IDParam(r, "runner_id", "Runner")
	if err != nil {
		return err
	}
	if err := h.s.Delete(r.Context(), caller, id); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

func (h handlers) projectRunners(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	in, invalid, err := listInput(r, allScopes)
	if err != nil {
		return err
	}
	list, total, err := h.s.ProjectRunners(r.Context(), httpx.CallerOf(r), ref, in, invalid)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, runnersOf(list, h.s.now()), total, in.Page)
}

func (h handlers) enable(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	var in struct {
		RunnerID int64 `param:"runner_id,required"`
	}
	var p httpx.Problems
	if err := p.Decode(r, &in); err != nil {
		return err
	}
	rn, err := h.s.EnableRunner(r.Context(), httpx.CallerOf(r), ref, in.RunnerID, p.Err())
	if err != nil {
		return err
	}
	return httpx.Created(w, runnerOf(rn, h.s.now()))
}

func (h handlers) disable(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	id, err := httpx.IDParam(r, "runner_id", "Runner")
	if err != nil {
		return err
	}
	if err := h.s.DisableRunner(r.Context(), httpx.CallerOf(r), ref, id); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

func (h handlers) resetRegistrationToken(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	token, err := h.s.ResetRegistrationToken(r.Context(), httpx.CallerOf(r), ref)
	if err != nil {
		return err
	}
	return httpx.Created(w, tokenAnswer{Token: token})
}
