package issues

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/issuable"
)

// Milestones are read by whoever reads the project (GitLab 9.x's
// read_milestone does not depend on the issue tracker) and written by
// reporters and up (admin_milestone).

type milestoneCreateParams struct {
	Title       string  `param:"title,required"`
	Description string  `param:"description"`
	DueDate     *string `param:"due_date"`
	StartDate   *string `param:"start_date"`
}

type milestoneUpdateParams struct {
	Title       *string `param:"title"`
	Description *string `param:"description"`
	DueDate     *string `param:"due_date"`
	StartDate   *string `param:"start_date"`
	StateEvent  *string `param:"state_event"`
}

func (in milestoneUpdateParams) validate() error {
	if in.Title == nil && in.Description == nil && in.DueDate == nil && in.StartDate == nil && in.StateEvent == nil {
		return &core.Error{Kind: core.ErrInvalid, Param: true,
			Msg: "title, description, due_date, start_date, state_event are missing, at least one parameter must be provided"}
	}
	if in.StateEvent != nil && *in.StateEvent != "close" && *in.StateEvent != "activate" {
		return invalidValue("state_event")
	}
	return nil
}

type milestoneListParams struct {
	IIDs   []int64 `param:"iids"`
	State  string  `param:"state"`
	Search string  `param:"search"`
}

// adminTarget resolves {id} for a write by a reporter or above: 401, 404,
// then 403.
func (s *Service) adminTarget(r *http.Request) (target, error) {
	if _, err := httpx.RequireUser(r); err != nil {
		return target{}, err
	}
	t, err := s.resolve(r)
	if err != nil {
		return t, err
	}
	if !t.canAdmin() {
		return target{}, core.Forbidden("")
	}
	return t, nil
}

// loadMilestone reads {milestone_id} of the target's project.
func (s *Service) loadMilestone(r *http.Request, t target) (*domain.Milestone, error) {
	id, err := positiveParam(r, "milestone_id", "Milestone")
	if err != nil {
		return nil, err
	}
	m, err := s.p.Milestones.Get(r.Context(), t.project.ID, id)
	if err != nil {
		return nil, notFound(err, "Milestone", "read milestone")
	}
	return m, nil
}

// checkDates is the model's rule on a milestone's dates.
func checkDates(m *domain.Milestone) error {
	if m.StartDate != nil && m.DueDate != nil && m.DueDate.Before(*m.StartDate) {
		return core.FieldInvalid("due_date", "must be greater than start date")
	}
	return nil
}

// milestoneConflict gives a taken title GitLab's message.
func milestoneConflict(err error, doing string) error {
	if errors.Is(err, core.ErrConflict) {
		return core.Conflict("Milestone already exists")
	}
	return notFound(err, "Milestone", doing)
}

// publishMilestone announces a milestone change inside the transaction.
func (s *Service) publishMilestone(ctx context.Context, m *domain.Milestone, action string, actor int64) error {
	if err := s.p.Bus.Publish(ctx, domain.MilestoneEvent{Milestone: *m, Action: action, Actor: actor}); err != nil {
		return fmt.Errorf("publish milestone %s: %w", action, err)
	}
	return nil
}

// GET /projects/:id/milestones
func (h handlers) listMilestones(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.resolve(r)
	if err != nil {
		return err
	}
	var in milestoneListParams
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	f := domain.MilestoneFilter{ProjectID: t.project.ID, IIDs: in.IIDs, Search: strings.TrimSpace(in.Search), Page: pg}
	switch in.State {
	case "":
	case domain.MilestoneActive, domain.MilestoneClosed:
		f.State = in.State
	default:
		return invalidValue("state")
	}
	list, total, err := h.s.p.Milestones.List(r.Context(), f)
	if err != nil {
		return fmt.Errorf("list milestones: %w", err)
	}
	out := make([]*apijson.Milestone, 0, len(list))
	for i := range list {
		out = append(out, apijson.MilestoneOf(&list[i]))
	}
	return httpx.Paginated(w, r, out, total, pg)
}

// GET /projects/:id/milestones/:milestone_id
func (h handlers) getMilestone(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.resolve(r)
	if err != nil {
		return err
	}
	m, err := h.s.loadMilestone(r, t)
	if err != nil {
		return err
	}
	return httpx.OK(w, apijson.MilestoneOf(m))
}

// POST /projects/:id/milestones
func (h handlers) createMilestone(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.adminTarget(r)
	if err != nil {
		return err
	}
	var in milestoneCreateParams
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	if err := issuable.ValidTitle(in.Title); err != nil {
		return err
	}
	m := &domain.Milestone{ProjectID: t.project.ID, Title: strings.TrimSpace(in.Title), Description: in.Description,
		State: domain.MilestoneActive, CreatedAt: h.s.now(), UpdatedAt: h.s.now()}
	if m.DueDate, err = parseDate("due_date", in.DueDate); err != nil {
		return err
	}
	if m.StartDate, err = parseDate("start_date", in.StartDate); err != nil {
		return err
	}
	if err := checkDates(m); err != nil {
		return err
	}
	ctx := r.Context()
	err = h.s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := h.s.p.Milestones.Create(ctx, m); err != nil {
			return milestoneConflict(err, "create milestone")
		}
		return h.s.publishMilestone(ctx, m, domain.ActionCreated, t.caller.UserID())
	})
	if err != nil {
		return err
	}
	return httpx.Created(w, apijson.MilestoneOf(m))
}

// PUT /projects/:id/milestones/:milestone_id
func (h handlers) updateMilestone(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.adminTarget(r)
	if err != nil {
		return err
	}
	var in milestoneUpdateParams
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	if err := in.validate(); err != nil {
		return err
	}
	if in.Title != nil {
		if err := issuable.ValidTitle(*in.Title); err != nil {
			return err
		}
	}
	due, err := parseDate("due_date", in.DueDate)
	if err != nil {
		return err
	}
	start, err := parseDate("start_date", in.StartDate)
	if err != nil {
		return err
	}
	m, err := h.s.loadMilestone(r, t)
	if err != nil {
		return err
	}
	var out *domain.Milestone
	ctx := r.Context()
	err = h.s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		action := ""
		var err error
		out, err = h.s.p.Milestones.Update(ctx, t.project.ID, m.ID, func(cur *domain.Milestone) error {
			action = applyMilestone(cur, in, due, start)
			cur.UpdatedAt = h.s.now()
			return checkDates(cur)
		})
		if err != nil {
			return milestoneConflict(err, "update milestone")
		}
		if action == "" {
			return nil
		}
		return h.s.publishMilestone(ctx, out, action, t.caller.UserID())
	})
	if err != nil {
		return err
	}
	return httpx.OK(w, apijson.MilestoneOf(out))
}

// applyMilestone sets the asked values and returns the event action of a
// state change ("" when the state stays).
func applyMilestone(cur *domain.Milestone, in milestoneUpdateParams, due, start *time.Time) string {
	if in.Title != nil {
		cur.Title = strings.TrimSpace(*in.Title)
	}
	if in.Description != nil {
		cur.Description = *in.Description
	}
	if in.DueDate != nil {
		cur.DueDate = due
	}
	if in.StartDate != nil {
		cur.StartDate = start
	}
	switch {
	case in.StateEvent == nil:
	case *in.StateEvent == "close" && cur.State != domain.MilestoneClosed:
		cur.State = domain.MilestoneClosed
		return domain.ActionClosed
	case *in.StateEvent == "activate" && cur.State != domain.MilestoneActive:
		cur.State = domain.MilestoneActive
		return domain.ActionReopened
	}
	return ""
}

// DELETE /projects/:id/milestones/:milestone_id: issues and merge
// requests lose the milestone.
func (h handlers) deleteMilestone(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.adminTarget(r)
	if err != nil {
		return err
	}
	m, err := h.s.loadMilestone(r, t)
	if err != nil {
		return err
	}
	ctx := r.Context()
	err = h.s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := h.s.p.Milestones.Delete(ctx, t.project.ID, m.ID); err != nil {
			return notFound(err, "Milestone", "delete milestone")
		}
		return h.s.publishMilestone(ctx, m, domain.ActionDestroyed, t.caller.UserID())
	})
	if err != nil {
		return err
	}
	return httpx.NoContent(w)
}

// GET /projects/:id/milestones/:milestone_id/issues: the issues of the
// milestone the caller may see (none while the tracker is off).
func (h handlers) milestoneIssues(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.resolve(r)
	if err != nil {
		return err
	}
	m, err := h.s.loadMilestone(r, t)
	if err != nil {
		return err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	if !t.canRead() {
		return httpx.Paginated(w, r, []apijson.Issue{}, 0, pg)
	}
	f := domain.IssueFilter{ProjectID: t.project.ID, Viewer: t.viewer(), MilestoneIDs: []int64{m.ID}, Page: pg}
	return h.render(w, r, f, nil)
}

// GET /projects/:id/milestones/:milestone_id/merge_requests: the merge
// requests of the milestone, when the caller may read merge requests.
func (h handlers) milestoneMergeRequests(w http.ResponseWriter, r *http.Request) error {
	t, err := h.s.resolve(r)
	if err != nil {
		return err
	}
	m, err := h.s.loadMilestone(r, t)
	if err != nil {
		return err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	var list []domain.MergeRequest
	total := 0
	if access.CanReadMergeRequests(t.project, t.rights) {
		f := domain.MergeRequestFilter{ProjectID: t.project.ID, MilestoneIDs: []int64{m.ID}, Page: pg}
		if list, total, err = h.s.p.MergeRequests.List(ctx, f); err != nil {
			return fmt.Errorf("list merge requests of milestone: %w", err)
		}
	}
	out, err := h.s.p.MRPresenter.Render(ctx, t.caller, list)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, out, total, pg)
}
