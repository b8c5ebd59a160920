package issues

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/issuable"
)

// listParams are the filters shared by the issue lists.
type listParams struct {
	State         string     `param:"state"`
	OrderBy       string     `param:"order_by"`
	Sort          string     `param:"sort"`
	Milestone     *string    `param:"milestone"`
	Labels        *[]string  `param:"labels"`
	Search        string     `param:"search"`
	CreatedAfter  *time.Time `param:"created_after"`
	CreatedBefore *time.Time `param:"created_before"`
	IIDs          []int64    `param:"iids"`
	AuthorID      int64      `param:"author_id"`
	AssigneeID    int64      `param:"assignee_id"`
	Scope         string     `param:"scope"`
}

// filter turns the parameters into a store filter.
func (in listParams) filter(pg domain.Page) (domain.IssueFilter, error) {
	f := domain.IssueFilter{IIDs: in.IIDs, AuthorID: in.AuthorID, AssigneeID: in.AssigneeID,
		Search: strings.TrimSpace(in.Search), CreatedAfter: in.CreatedAfter, CreatedBefore: in.CreatedBefore, Page: pg}
	switch in.State {
	case "", "all":
	case "opened":
		f.States = []string{domain.IssueOpened, domain.IssueReopened}
	case "closed":
		f.States = []string{domain.IssueClosed}
	default:
		return f, invalidValue("state")
	}
	var err error
	if f.OrderBy, f.Ascending, err = issuable.Order(in.OrderBy, in.Sort); err != nil {
		return f, err
	}
	if in.Labels != nil {
		f.Labels, f.NoLabels = issuable.LabelFilter(*in.Labels)
	}
	return f, nil
}

// decodeList reads a list's parameters and page into a store filter.
func decodeList(r *http.Request) (listParams, domain.IssueFilter, error) {
	var in listParams
	if err := httpx.Decode(r, &in); err != nil {
		return in, domain.IssueFilter{}, err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return in, domain.IssueFilter{}, err
	}
	f, err := in.filter(pg)
	return in, f, err
}

// milestoneFilter resolves the milestone title filter; false when nothing
// can match (a title no milestone of the project has; titles are only
// resolved within one project).
func (s *Service) milestoneFilter(ctx context.Context, f *domain.IssueFilter, title *string) (bool, error) {
	if title == nil || *title == "" {
		return true, nil
	}
	if issuable.NoMilestone(*title) {
		f.NoMilestone = true
		return true, nil
	}
	if f.ProjectID == 0 {
		return false, nil
	}
	ids, err := s.p.Milestones.IDsByTitle(ctx, f.ProjectID, *title)
	if err != nil {
		return false, fmt.Errorf("milestones titled %q: %w", *title, err)
	}
	f.MilestoneIDs = ids
	return len(ids) > 0, nil
}

// GET /projects/:id/issues
func (h handlers) list(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.project(r)
	if err != nil {
		return err
	}
	in, f, err := decodeList(r)
	if err != nil {
		return err
	}
	f.ProjectID, f.Viewer = t.project.ID, t.viewer()
	return h.render(w, r, f, in.Milestone)
}

// GET /issues: the caller's issues (scope) across the projects whose
// issues they may read.
func (h handlers) listAll(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireUser(r)
	if err != nil {
		return err
	}
	in, f, err := decodeList(r)
	if err != nil {
		return err
	}
	switch in.Scope {
	case "", "created_by_me", "created-by-me":
		f.AuthorID = caller.UserID()
	case "assigned_to_me", "assigned-to-me":
		f.AssigneeID = caller.UserID()
	case "all":
	default:
		return invalidValue("scope")
	}
	ctx := r.Context()
	if f.Readable, err = h.s.p.Policy.ProjectScope(ctx, caller); err != nil {
		return fmt.Errorf("readable projects: %w", err)
	}
	if f.Viewer, err = h.s.p.Policy.IssueViewer(ctx, caller); err != nil {
		return err
	}
	return h.render(w, r, f, in.Milestone)
}

// render lists one page of f.
func (h handlers) render(w http.ResponseWriter, r *http.Request, f domain.IssueFilter, milestone *string) error {
	ctx := r.Context()
	ok, err := h.s.milestoneFilter(ctx, &f, milestone)
	if err != nil {
		return err
	}
	var list []domain.Issue
	total := 0
	if ok {
		if list, total, err = h.s.p.Issues.List(ctx, f); err != nil {
			return fmt.Errorf("list issues: %w", err)
		}
	}
	out, err := h.s.p.Presenter.Render(ctx, httpx.CallerOf(r), list)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, out, total, f.Page)
}
