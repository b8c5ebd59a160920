package issues

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// GET /projects/:id/labels
func (h handlers) listLabels(w http.ResponseWriter, r *http.Request) error {
	in := pageOf(r)
	page, err := h.s.ListLabels(r.Context(), httpx.CallerOf(r), refOf(r), in)
	if err != nil {
		return err
	}
	out := make([]labelJSON, 0, len(page.Labels))
	for i := range page.Labels {
		out = append(out, newLabelJSON(&page.Labels[i], page.Counts[page.Labels[i].Name]))
	}
	return httpx.Paginated(w, r, out, page.Total, in.Page)
}

// POST /projects/:id/labels
func (h handlers) createLabel(w http.ResponseWriter, r *http.Request) error {
	var in LabelCreateInput
	in.Invalid = httpx.Decode(r, &in)
	l, c, err := h.s.CreateLabel(r.Context(), httpx.CallerOf(r), refOf(r), in)
	return replyLabel(w, http.StatusCreated, l, c, err)
}

// PUT /projects/:id/labels
func (h handlers) updateLabel(w http.ResponseWriter, r *http.Request) error {
	var in LabelUpdateInput
	in.Invalid = httpx.Decode(r, &in)
	l, c, err := h.s.UpdateLabel(r.Context(), httpx.CallerOf(r), refOf(r), in)
	return replyLabel(w, http.StatusOK, l, c, err)
}

// DELETE /projects/:id/labels
func (h handlers) deleteLabel(w http.ResponseWriter, r *http.Request) error {
	var in LabelDeleteInput
	in.Invalid = httpx.Decode(r, &in)
	if err := h.s.DeleteLabel(r.Context(), httpx.CallerOf(r), refOf(r), in); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

func replyLabel(w http.ResponseWriter, status int, l *domain.Label, c domain.LabelCounts, err error) error {
	if err != nil {
		return err
	}
	return httpx.JSON(w, status, newLabelJSON(l, c))
}
