package issues

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// labelJSON is GitLab 9.x's label entity; counts are what the caller may
// see.
type labelJSON struct {
	ID                     int64   `json:"id"`
	Name                   string  `json:"name"`
	Color                  string  `json:"color"`
	Description            *string `json:"description"`
	OpenIssuesCount        int     `json:"open_issues_count"`
	ClosedIssuesCount      int     `json:"closed_issues_count"`
	OpenMergeRequestsCount int     `json:"open_merge_requests_count"`
	Priority               *int    `json:"priority"`
	Subscribed             bool    `json:"subscribed"`
}

func newLabelJSON(l *domain.Label, c domain.LabelCounts) labelJSON {
	return labelJSON{ID: l.ID, Name: l.Name, Color: l.Color, Description: apijson.NullString(l.Description),
		OpenIssuesCount: c.OpenIssues, ClosedIssuesCount: c.ClosedIssues, OpenMergeRequestsCount: c.OpenMergeRequests}
}

type labelCreateParams struct {
	Name        string `param:"name,required"`
	Color       string `param:"color,required"`
	Description string `param:"description"`
}

type labelUpdateParams struct {
	Name        string  `param:"name,required"`
	NewName     *string `param:"new_name"`
	Color       *string `param:"color"`
	Description *string `param:"description"`
}

type labelDeleteParams struct {
	Name string `param:"name,required"`
}

// colorPattern is GitLab 9.x's ColorValidator.
var colorPattern = regexp.MustCompile(`\A#(?:[0-9A-Fa-f]{3}){1,2}\z`)

// checkLabel is the model's validation of a label.
func checkLabel(l *domain.Label) error {
	fields := map[string][]string{}
	if !colorPattern.MatchString(l.Color) {
		fields["color"] = []string{"must be a valid color code"}
	}
	switch {
	case l.Name == "":
		fields["title"] = []string{"can't be blank"}
	case strings.Contains(l.Name, ","):
		fields["title"] = []string{"is invalid"}
	}
	if len(fields) > 0 {
		return core.Validation(fields)
	}
	return nil
}

// labelError gives store errors GitLab's label messages.
func labelError(err error, doing string) error {
	if errors.Is(err, core.ErrConflict) {
		return core.Conflict("Label already exists")
	}
	return notFound(err, "Label", doing)
}

// counts are the label counts the caller may see in the project.
func (s *Service) counts(ctx context.Context, t target) (map[string]domain.LabelCounts, error) {
	c, err := s.p.Labels.Counts(ctx, t.project.ID, t.viewer())
	if err != nil {
		return nil, fmt.Errorf("count labels: %w", err)
	}
	return c, nil
}

// labelReply renders one label with its counts.
func (h handlers) labelReply(w http.ResponseWriter, r *http.Request, t target, status int, l *domain.Label) error {
	c, err := h.s.counts(r.Context(), t)
	if err != nil {
		return err
	}
	return httpx.JSON(w, status, newLabelJSON(l, c[l.Name]))
}

// GET /projects/:id/labels
func (h handlers) listLabels(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.resolve(r)
	if err != nil {
		return err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	labels, err := h.s.p.Labels.List(ctx, t.project.ID)
	if err != nil {
		return fmt.Errorf("list labels: %w", err)
	}
	c, err := h.s.counts(ctx, t)
	if err != nil {
		return err
	}
	from := min(pg.Offset(), len(labels))
	to := min(from+pg.PerPage, len(labels))
	out := make([]labelJSON, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, newLabelJSON(&labels[i], c[labels[i].Name]))
	}
	return httpx.Paginated(w, r, out, len(labels), pg)
}

// POST /projects/:id/labels
func (h handlers) createLabel(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.adminTarget(r)
	if err != nil {
		return err
	}
	var in labelCreateParams
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	l := &domain.Label{ProjectID: t.project.ID, Name: strings.TrimSpace(in.Name), Color: strings.TrimSpace(in.Color),
		Description: in.Description, CreatedAt: h.s.now(), UpdatedAt: h.s.now()}
	if err := checkLabel(l); err != nil {
		return err
	}
	if err := h.s.p.Labels.Create(r.Context(), l); err != nil {
		return labelError(err, "create label")
	}
	return h.labelReply(w, r, t, http.StatusCreated, l)
}

// PUT /projects/:id/labels: renames carry over to issues and merge
// requests (the store does it).
func (h handlers) updateLabel(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.adminTarget(r)
	if err != nil {
		return err
	}
	var in labelUpdateParams
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	if in.NewName == nil && in.Color == nil && in.Description == nil {
		return &core.Error{Kind: core.ErrInvalid, Param: true,
			Msg: "new_name, color, description are missing, at least one parameter must be provided"}
	}
	l, err := h.s.p.Labels.Update(r.Context(), t.project.ID, strings.TrimSpace(in.Name), func(l *domain.Label) error {
		if in.NewName != nil {
			l.Name = strings.TrimSpace(*in.NewName)
		}
		if in.Color != nil {
			l.Color = strings.TrimSpace(*in.Color)
		}
		if in.Description != nil {
			l.Description = *in.Description
		}
		l.UpdatedAt = h.s.now()
		return checkLabel(l)
	})
	if err != nil {
		return labelError(err, "update label")
	}
	return h.labelReply(w, r, t, http.StatusOK, l)
}

// DELETE /projects/:id/labels
func (h handlers) deleteLabel(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.adminTarget(r)
	if err != nil {
		return err
	}
	var in labelDeleteParams
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	if err := h.s.p.Labels.Delete(r.Context(), t.project.ID, strings.TrimSpace(in.Name)); err != nil {
		return labelError(err, "delete label")
	}
	return httpx.NoContent(w)
}
