package mergerequests

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/issuable"
)

// GET .../time_stats
func (h handlers) timeStats(w http.ResponseWriter, r *http.Request) error {
	st, err := h.s.TimeStats(r.Context(), httpx.CallerOf(r), refOf(r), iid(r))
	if err != nil {
		return err
	}
	return httpx.JSON(w, http.StatusOK, apijson.NewTimeStats(st))
}

// POST .../time_estimate, reset_time_estimate, add_spent_time and
// reset_spent_time; GitLab answers 201 only for add_spent_time.
func (h handlers) trackTime(op issuable.TimeOp, status int) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		c := issuable.TimeChange{Op: op}
		c.Invalid = httpx.Decode(r, &c)
		st, err := h.s.TrackTime(r.Context(), httpx.CallerOf(r), refOf(r), iid(r), c)
		if err != nil {
			return err
		}
		return httpx.JSON(w, status, apijson.NewTimeStats(st))
	}
}
