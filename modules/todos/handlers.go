package todos

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// handlers decode, call the service and render. Every route needs a
// signed-in caller (401 otherwise).
type handlers struct {
	s       *Service
	present *apijson.TodoPresenter
}

func (h handlers) list(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireUser(r)
	if err != nil {
		return err
	}
	var in ListInput
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	list, total, err := h.s.List(r.Context(), caller, in, pg)
	if err != nil {
		return err
	}
	out, err := h.present.Todos(r.Context(), caller, list)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, out, total, pg)
}

// markDone answers 201 with the todo, Grape's default for a POST.
func (h handlers) markDone(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireUser(r)
	if err != nil {
		return err
	}
	id, err := httpx.IDParam(r, "id", "Todo")
	if err != nil {
		return err
	}
	t, err := h.s.MarkDone(r.Context(), caller, id)
	if err != nil {
		return err
	}
	out, err := h.present.Todos(r.Context(), caller, []domain.Todo{*t})
	if err != nil {
		return err
	}
	return httpx.Created(w, out[0])
}

// markAllDone answers 204 without a body.
func (h handlers) markAllDone(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireUser(r)
	if err != nil {
		return err
	}
	if err := h.s.MarkAllDone(r.Context(), caller); err != nil {
		return err
	}
	return httpx.NoContent(w)
}
