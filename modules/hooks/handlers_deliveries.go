package hooks

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/httpx"
)

// deliveryID reads {hook_log_id}.
func deliveryID(r *http.Request) DeliveryID { return pathID(r, "hook_log_id") }

// GET /projects/:id/hooks/:hook_id/events: the hook's recent deliveries,
// newest first, paginated.
func (h handlers) listDeliveries(w http.ResponseWriter, r *http.Request) error {
	ref, err := projectPath(r)
	if err != nil {
		return err
	}
	pg, perr := httpx.PageOf(r)
	l, err := h.s.ListDeliveries(r.Context(), httpx.CallerOf(r), ref, hookID(r), pg, perr)
	if err != nil {
		return err
	}
	out := make([]deliveryJSON, 0, len(l.Deliveries))
	for i := range l.Deliveries {
		out = append(out, deliveryOf(l.Hook, &l.Deliveries[i]))
	}
	return httpx.Paginated(w, r, out, l.Total, pg)
}

// POST /projects/:id/hooks/:hook_id/events/:hook_log_id/resend: 201 with
// the queued copy.
func (h handlers) resend(w http.ResponseWriter, r *http.Request) error {
	ref, err := projectPath(r)
	if err != nil {
		return err
	}
	d, err := h.s.Resend(r.Context(), httpx.CallerOf(r), ref, hookID(r), deliveryID(r))
	if err != nil {
		return err
	}
	return httpx.Created(w, deliveryOf(d.Hook, &d.Delivery))
}
