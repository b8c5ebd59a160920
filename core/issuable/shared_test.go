package issuable

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

func TestCriteriaAndMine(t *testing.T) {
	t.Parallel()
	labels := []string{"b", " a", "b"}
	c, err := ListParams{OrderBy: "updated_at", Sort: "asc", Labels: &labels, IIDs: []int64{2}, AuthorID: 5}.Criteria()
	if err != nil || c.OrderBy != "updated_at" || !c.Ascending || !reflect.DeepEqual(c.Labels, []string{"a", "b"}) ||
		c.NoLabels || !reflect.DeepEqual(c.IIDs, []int64{2}) || c.AuthorID != 5 {
		t.Fatalf("Criteria = %+v, %v", c, err)
	}
	if _, err := (ListParams{Sort: "sideways"}).Criteria(); !errors.Is(err, core.ErrInvalid) {
		t.Errorf("bad sort: %v", err)
	}
	for _, m := range []struct {
		scope            string
		author, assignee int64
		bad              bool
	}{
		{"", 9, 7, false}, {"created_by_me", 9, 7, false}, {"created-by-me", 9, 7, false},
		{"assigned_to_me", 5, 9, false}, {"assigned-to-me", 5, 9, false}, {"all", 5, 7, false}, {"mine", 5, 7, true},
	} {
		author, assignee := int64(5), int64(7)
		err := Mine(m.scope, 9, &author, &assignee)
		if (err != nil) != m.bad || author != m.author || assignee != m.assignee {
			t.Errorf("Mine(%q) = author %d assignee %d, %v", m.scope, author, assignee, err)
		}
	}
}

// milestones is a MilestoneReader over a fixed set.
type milestones []domain.Milestone

func (ms milestones) GetMany(_ context.Context, ids []int64) ([]domain.Milestone, error) {
	var out []domain.Milestone
	for _, m := range ms {
		for _, id := range ids {
			if m.ID == id {
				out = append(out, m)
			}
		}
	}
	return out, nil
}

func (ms milestones) IDsByTitle(_ context.Context, projectID int64, title string) ([]int64, error) {
	var out []int64
	for _, m := range ms {
		if m.ProjectID == projectID && m.Title == title {
			out = append(out, m.ID)
		}
	}
	return out, nil
}

func TestMilestonesFilter(t *testing.T) {
	t.Parallel()
	ms := milestones{{ID: 4, IID: 1, ProjectID: 1, Title: "v1"}, {ID: 5, IID: 1, ProjectID: 2, Title: "v1"}}
	title := func(s string) *string { return &s }
	for _, c := range []struct {
		name    string
		store   ports.MilestoneReader
		project int64
		title   *string
		want    MilestoneMatch
	}{
		{"no filter", ms, 1, nil, MilestoneMatch{}},
		{"empty", ms, 1, title(""), MilestoneMatch{}},
		{"none", ms, 0, title("No Milestone"), MilestoneMatch{None: true}},
		{"title", ms, 1, title("v1"), MilestoneMatch{IDs: []int64{4}}},
		{"unknown title", ms, 1, title("v2"), MilestoneMatch{Nothing: true}},
		{"across projects", ms, 0, title("v1"), MilestoneMatch{Nothing: true}},
		{"no milestone store", nil, 1, title("v1"), MilestoneMatch{Nothing: true}},
	} {
		got, err := Milestones(context.Background(), c.store, c.project, c.title)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
	a := &Activity{Milestones: ms}
	if id, err := a.Milestone(context.Background(), 1, ptr(4)); err != nil || *id != 4 {
		t.Errorf("milestone of the project: %v %v", id, err)
	}
	if _, err := a.Milestone(context.Background(), 1, ptr(5)); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("milestone of another project: %v", err)
	}
	if id, err := a.Milestone(context.Background(), 1, ptr(0)); id != nil || err != nil {
		t.Errorf("milestone 0 (none): %v %v", id, err)
	}
	if _, err := (&Activity{}).Milestone(context.Background(), 1, ptr(4)); !errors.Is(err, core.ErrNotFound) {
		t.Errorf("without a milestone store: %v", err)
	}
}

func ptr(n int64) *int64 { return &n }

// subscriptions is a SubscriptionStore in memory.
type subscriptions map[int64]bool

func (s subscriptions) Set(_ context.Context, _ domain.Subject, userID int64, on bool) error {
	s[userID] = on
	return nil
}

func (s subscriptions) Get(_ context.Context, _ domain.Subject, userID int64) (*bool, error) {
	if on, ok := s[userID]; ok {
		return &on, nil
	}
	return nil, nil
}

func (s subscriptions) OfUser(context.Context, int64, string, []int64) (map[int64]bool, error) {
	return nil, nil
}

func (s subscriptions) DeleteTarget(context.Context, domain.Subject) error { return nil }

func TestSubscribeNotModified(t *testing.T) {
	t.Parallel()
	subs := subscriptions{}
	a := &Activity{Subscriptions: subs}
	it := IssueItem(&domain.Issue{ID: 1, AuthorID: 1, AssigneeID: ptr(3)})
	ctx := context.Background()
	if err := a.Subscribe(ctx, it, 1, true); !errors.Is(err, core.ErrNotModified) {
		t.Errorf("the author subscribes again: %v", err)
	}
	if err := a.Subscribe(ctx, it, 1, false); err != nil || subs[1] {
		t.Errorf("the author unsubscribes: %v %v", err, subs)
	}
	if err := a.Subscribe(ctx, it, 2, false); !errors.Is(err, core.ErrNotModified) {
		t.Errorf("a stranger unsubscribes: %v", err)
	}
	if err := a.Subscribe(ctx, it, 2, true); err != nil || !subs[2] {
		t.Errorf("a stranger subscribes: %v %v", err, subs)
	}
}

func TestLabelsNoteAndSame(t *testing.T) {
	t.Parallel()
	if got := LabelsNote([]string{"a", "b"}, []string{"b", "c", "d"}); got != `added ~"c" ~"d" labels and removed ~"a" label` {
		t.Errorf("LabelsNote = %s", got)
	}
	if got := LabelsNote([]string{"a"}, []string{"a"}); got != "" {
		t.Errorf("unchanged labels: %q", got)
	}
	now := time.Now()
	if !SameID(nil, nil) || SameID(ptr(1), nil) || !SameID(ptr(1), ptr(1)) || !SameDate(&now, &now) || SameDate(nil, &now) {
		t.Error("SameID / SameDate")
	}
	if FirstError(nil, core.NotFound("x"), core.Unauthenticated()) == nil || FirstError(nil, nil) != nil {
		t.Error("FirstError")
	}
	if got := PageOf([]int{1, 2, 3, 4, 5}, domain.Page{Page: 2, PerPage: 2}); !reflect.DeepEqual(got, []int{3, 4}) {
		t.Errorf("PageOf = %v", got)
	}
	if got := PageOf([]int{1}, domain.Page{Page: 3, PerPage: 2}); len(got) != 0 || got == nil {
		t.Errorf("page past the end = %#v", got)
	}
}

func TestCheckList(t *testing.T) {
	t.Parallel()
	states := map[string][]string{"opened": {"opened", "reopened"}}
	bad := core.InvalidParam("page")
	if _, _, err := Check(ListParams{State: "nonsense"}, bad, states); err != bad {
		t.Errorf("the handler's problem comes first: %v", err)
	}
	if _, _, err := Check(ListParams{State: "nonsense", Sort: "sideways"}, nil, states); err == nil || !strings.Contains(err.Error(), "state does not have a valid value") {
		t.Errorf("bad state before bad sort: %v", err)
	}
	if _, _, err := Check(ListParams{Sort: "sideways"}, nil, states); !errors.Is(err, core.ErrInvalid) {
		t.Errorf("bad sort: %v", err)
	}
	for state, want := range map[string][]string{"": nil, "all": nil, "opened": {"opened", "reopened"}} {
		got, c, err := Check(ListParams{State: state, OrderBy: "updated_at"}, nil, states)
		if err != nil || !reflect.DeepEqual(got, want) || c.OrderBy != "updated_at" {
			t.Errorf("Check(state %q) = %v, %+v, %v", state, got, c, err)
		}
	}
}
