package issuable

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// ListParams are the filters the issue and merge request lists share,
// tagged for the handlers' decoder (each module decodes its own extras:
// search, view).
type ListParams struct {
	State         string     `param:"state"`
	OrderBy       string     `param:"order_by"`
	Sort          string     `param:"sort"`
	Milestone     *string    `param:"milestone"`
	Labels        *[]string  `param:"labels"`
	CreatedAfter  *time.Time `param:"created_after"`
	CreatedBefore *time.Time `param:"created_before"`
	IIDs          []int64    `param:"iids"`
	AuthorID      int64      `param:"author_id"`
	AssigneeID    int64      `param:"assignee_id"`
	Scope         string     `param:"scope"`
}

// Criteria are ListParams checked: the fields both stores' filters take.
type Criteria struct {
	IIDs                        []int64
	AuthorID, AssigneeID        int64
	CreatedAfter, CreatedBefore *time.Time
	OrderBy                     string // created_at or updated_at
	Ascending                   bool
	Labels                      []string // every one of them
	NoLabels                    bool
}

// Criteria checks order_by, sort and labels.
func (p ListParams) Criteria() (Criteria, error) {
	c := Criteria{IIDs: p.IIDs, AuthorID: p.AuthorID, AssigneeID: p.AssigneeID,
		CreatedAfter: p.CreatedAfter, CreatedBefore: p.CreatedBefore}
	var err error
	if c.OrderBy, c.Ascending, err = Order(p.OrderBy, p.Sort); err != nil {
		return c, err
	}
	if p.Labels != nil {
		c.Labels, c.NoLabels = LabelFilter(*p.Labels)
	}
	return c, nil
}

// Check reports what the handler found wrong with a list's request
// (invalid), then checks its state (a key of states, whose values the
// store filters on; "" and "all" mean any), order and labels.
func Check[S any](p ListParams, invalid error, states map[string][]S) ([]S, Criteria, error) {
	if invalid != nil {
		return nil, Criteria{}, invalid
	}
	var named []S
	if p.State != "" && p.State != "all" {
		var ok bool
		if named, ok = states[p.State]; !ok {
			return nil, Criteria{}, InvalidValue("state")
		}
	}
	c, err := p.Criteria()
	return named, c, err
}

// Mine applies the scope of the lists across projects (GET /issues, GET
// /merge_requests) for userID: created_by_me (the default) or
// assigned_to_me override the author or assignee filter; all keeps both.
func Mine(scope string, userID int64, authorID, assigneeID *int64) error {
	switch scope {
	case "", "created_by_me", "created-by-me":
		*authorID = userID
	case "assigned_to_me", "assigned-to-me":
		*assigneeID = userID
	case "all":
	default:
		return InvalidValue("scope")
	}
	return nil
}

// InvalidValue is Grape's complaint about a value outside a parameter's set.
func InvalidValue(name string) error {
	return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: name + " does not have a valid value"}
}

// Order reads the order_by (created_at by default, or updated_at) and sort
// (desc by default, or asc) parameters of issuable lists.
func Order(orderBy, sort string) (column string, ascending bool, err error) {
	switch orderBy {
	case "", "created_at":
		column = "created_at"
	case "updated_at":
		column = "updated_at"
	default:
		return "", false, InvalidValue("order_by")
	}
	switch sort {
	case "", "desc":
	case "asc":
		ascending = true
	default:
		return "", false, InvalidValue("sort")
	}
	return column, ascending, nil
}

// LabelFilter reads the labels filter: the labels an item must all carry,
// or none at all for GitLab's "No Label".
func LabelFilter(labels []string) (all []string, none bool) {
	all = NormalizeLabels(labels)
	if len(all) == 1 && strings.EqualFold(all[0], "No Label") {
		return nil, true
	}
	return all, false
}

// NoMilestone tells whether a milestone filter asks for items without one.
func NoMilestone(title string) bool {
	return strings.EqualFold(title, "None") || strings.EqualFold(title, "No Milestone")
}

// MilestoneMatch is a milestone title filter resolved: the milestones it
// names, or items without one (None); Nothing when no item can match.
type MilestoneMatch struct {
	IDs     []int64
	None    bool
	Nothing bool
}

// Milestones resolves the milestone title filter of a list. Titles are
// resolved within one project only: across projects (projectID 0), or
// without a milestone store, a title matches nothing.
func Milestones(ctx context.Context, milestones ports.MilestoneReader, projectID int64, title *string) (MilestoneMatch, error) {
	switch {
	case title == nil || *title == "":
		return MilestoneMatch{}, nil
	case NoMilestone(*title):
		return MilestoneMatch{None: true}, nil
	case milestones == nil || projectID == 0:
		return MilestoneMatch{Nothing: true}, nil
	}
	ids, err := milestones.IDsByTitle(ctx, projectID, *title)
	if err != nil {
		return MilestoneMatch{}, fmt.Errorf("milestones titled %q: %w", *title, err)
	}
	return MilestoneMatch{IDs: ids, Nothing: len(ids) == 0}, nil
}

// PageOf slices one page out of a full list.
func PageOf[T any](all []T, pg domain.Page) []T {
	from := min(pg.Offset(), len(all))
	to := min(from+pg.PerPage, len(all))
	return append(make([]T, 0, to-from), all[from:to]...)
}

// PageInput is the page a list asks for, as the handler read it. Invalid
// is what was wrong with the request's parameters: a use case reports it
// only once the caller's access is known (401, then 404, then 400), so a
// caller who may not use an endpoint learns nothing from its validation.
type PageInput struct {
	Page    domain.Page
	Invalid error
}

// FirstError is the first of errs that is not nil: the handlers' way to
// keep the order in which a request's parameters are judged.
func FirstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
