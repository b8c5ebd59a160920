package mergerequests

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/issuable"
)

// listParams are the filters shared by both lists.
type listParams struct {
	State         string     `param:"state"`
	OrderBy       string     `param:"order_by"`
	Sort          string     `param:"sort"`
	Milestone     *string    `param:"milestone"`
	View          string     `param:"view"`
	Labels        *[]string  `param:"labels"`
	CreatedAfter  *time.Time `param:"created_after"`
	CreatedBefore *time.Time `param:"created_before"`
	IIDs          []int64    `param:"iids"`
	AuthorID      int64      `param:"author_id"`
	AssigneeID    int64      `param:"assignee_id"`
	Scope         string     `param:"scope"`
}

func invalidValue(name string) error {
	return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: name + " does not have a valid value"}
}

// filter turns the parameters into a store filter.
func (in listParams) filter(pg domain.Page) (domain.MergeRequestFilter, error) {
	f := domain.MergeRequestFilter{IIDs: in.IIDs, AuthorID: in.AuthorID, AssigneeID: in.AssigneeID,
		CreatedAfter: in.CreatedAfter, CreatedBefore: in.CreatedBefore, Page: pg}
	switch in.State {
	case "", "all":
	case "opened":
		f.States = []domain.MergeRequestState{domain.MROpened, domain.MRReopened}
	case "closed":
		f.States = []domain.MergeRequestState{domain.MRClosed}
	case "merged":
		f.States = []domain.MergeRequestState{domain.MRMerged}
	default:
		return f, invalidValue("state")
	}
	var err error
	if f.OrderBy, f.Ascending, err = issuable.Order(in.OrderBy, in.Sort); err != nil {
		return f, err
	}
	switch in.View {
	case "", "simple":
	default:
		return f, invalidValue("view")
	}
	if in.Labels != nil {
		f.Labels, f.NoLabels = issuable.LabelFilter(*in.Labels)
	}
	return f, nil
}

// decodeList reads a list's parameters and page into a store filter.
func decodeList(r *http.Request) (listParams, domain.MergeRequestFilter, error) {
	var in listParams
	if err := httpx.Decode(r, &in); err != nil {
		return in, domain.MergeRequestFilter{}, err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return in, domain.MergeRequestFilter{}, err
	}
	f, err := in.filter(pg)
	return in, f, err
}

// milestoneFilter resolves the milestone title filter; false when nothing
// can match (a title no milestone has).
func (s *Service) milestoneFilter(ctx context.Context, f *domain.MergeRequestFilter, projectID int64, title *string) (bool, error) {
	if title == nil || *title == "" {
		return true, nil
	}
	if issuable.NoMilestone(*title) {
		f.NoMilestone = true
		return true, nil
	}
	if s.p.Milestones == nil || projectID == 0 {
		return false, nil
	}
	ids, err := s.p.Milestones.IDsByTitle(ctx, projectID, *title)
	if err != nil {
		return false, fmt.Errorf("milestones titled %q: %w", *title, err)
	}
	f.MilestoneIDs = ids
	return len(ids) > 0, nil
}

// GET /projects/:id/merge_requests
func (h handlers) list(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.project(r)
	if err != nil {
		return err
	}
	in, f, err := decodeList(r)
	if err != nil {
		return err
	}
	f.ProjectID = t.project.ID
	return h.render(w, r, f, in)
}

// GET /merge_requests: the caller's merge requests across the projects
// whose merge requests they may read.
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
	if f.Readable, err = h.s.p.Policy.ProjectScopeAt(r.Context(), caller, domain.Reporter); err != nil {
		return fmt.Errorf("readable projects: %w", err)
	}
	return h.render(w, r, f, in)
}

// render lists one page, refreshed against git, in the asked view.
func (h handlers) render(w http.ResponseWriter, r *http.Request, f domain.MergeRequestFilter, in listParams) error {
	ctx := r.Context()
	ok, err := h.s.milestoneFilter(ctx, &f, f.ProjectID, in.Milestone)
	if err != nil {
		return err
	}
	var list []domain.MergeRequest
	total := 0
	if ok {
		if list, total, err = h.s.p.MergeRequests.List(ctx, f); err != nil {
			return fmt.Errorf("list merge requests: %w", err)
		}
		list = h.s.refreshList(ctx, list)
	}
	if in.View == "simple" {
		out, err := h.s.p.Presenter.RenderSimple(ctx, list)
		if err != nil {
			return err
		}
		return httpx.Paginated(w, r, out, total, f.Page)
	}
	out, err := h.s.p.Presenter.Render(ctx, httpx.CallerOf(r), list)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, out, total, f.Page)
}

// closesIssues lists the issues merging would close that the caller may
// read (confidential ones only for those who may see them).
func (s *Service) closesIssues(ctx context.Context, r *http.Request, t target, m *domain.MergeRequest) ([]apijson.Issue, error) {
	byProject := map[int64][]int64{}
	var order []int64
	for _, k := range s.closingKeys(ctx, m, s.closingRefList(ctx, m)) {
		if _, ok := byProject[k.ProjectID]; !ok {
			order = append(order, k.ProjectID)
		}
		byProject[k.ProjectID] = append(byProject[k.ProjectID], k.IID)
	}
	var issues []domain.Issue
	for _, pid := range order {
		p, rights := t.project, t.rights
		if pid != t.project.ID {
			var err error
			if p, err = s.p.Projects.Get(ctx, pid); err != nil {
				continue
			}
			if rights, err = s.p.Policy.Project(ctx, t.caller, p); err != nil {
				return nil, fmt.Errorf("rights on project %d: %w", pid, err)
			}
		}
		if !access.CanReadIssues(p, rights) {
			continue
		}
		found, err := s.p.Issues.ByIIDs(ctx, pid, byProject[pid])
		if err != nil {
			return nil, fmt.Errorf("issues closed by merge request: %w", err)
		}
		for i := range found {
			if access.CanReadIssue(t.caller, p, rights, &found[i]) {
				issues = append(issues, found[i])
			}
		}
	}
	return s.p.IssuePresenter.Render(ctx, t.caller, issues)
}
