package contracttests

import (
	"fmt"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// The stores of issues and merge requests order, page and lock their items
// alike; these checks run on either through a few functions.

// storeListQuery is what the order and page checks ask of a list: the
// fields IssueFilter and MergeRequestFilter share.
type storeListQuery struct {
	OrderBy       string
	Ascending     bool
	Page          domain.Page
	CreatedBefore *time.Time
}

// storeCheckListOrderPages creates five items of one project through
// create (the nth created and updated at the given times, returning its
// IID) and checks how list (the IIDs of the project's items q asks for,
// and their total) orders and pages them.
func storeCheckListOrderPages(t *testing.T, create func(n int, created, updated time.Time) int64,
	list func(q storeListQuery) ([]int64, int, error)) {
	t.Helper()
	created := []int{2, 0, 3, 0, 1}
	updated := []int{0, 4, 1, 3, 2}
	iids := make([]int64, len(created))
	for n := range created {
		iids[n] = create(n, storeT0.Add(time.Duration(created[n])*time.Minute), storeT0.Add(time.Duration(updated[n])*time.Hour))
	}
	pick := func(ns ...int) []int64 {
		out := []int64{}
		for _, n := range ns {
			out = append(out, iids[n])
		}
		return out
	}
	check := func(what string, q storeListQuery, want []int64, total int) {
		t.Helper()
		got, n, err := list(q)
		storeWantList(t, what, got, n, err, want, total)
	}
	check("created desc (default)", storeListQuery{}, pick(2, 0, 4, 3, 1), 5)
	check("created asc, ties by ID", storeListQuery{OrderBy: "created_at", Ascending: true}, pick(1, 3, 4, 0, 2), 5)
	check("updated desc", storeListQuery{OrderBy: "updated_at"}, pick(1, 3, 4, 2, 0), 5)
	check("updated asc", storeListQuery{OrderBy: "updated_at", Ascending: true}, pick(0, 2, 4, 3, 1), 5)
	check("page 1", storeListQuery{Page: domain.Page{Page: 1, PerPage: 2}}, pick(2, 0), 5)
	check("page 2", storeListQuery{Page: domain.Page{Page: 2, PerPage: 2}}, pick(4, 3), 5)
	check("page 3", storeListQuery{Page: domain.Page{Page: 3, PerPage: 2}}, pick(1), 5)
	check("past the end", storeListQuery{Page: domain.Page{Page: 4, PerPage: 2}}, nil, 5)
	check("filtered page", storeListQuery{CreatedBefore: storePtr(storeT0.Add(time.Minute)), Page: domain.Page{Page: 1, PerPage: 2}}, pick(4, 3), 3)
	_, _, err := list(storeListQuery{OrderBy: "title"})
	storeWantKind(t, err, core.ErrInvalid, "unknown order")
}

// storeCheckConcurrentUpdates races storeWorkers updates of one item
// (update passes edit the item's labels and description under the store's
// lock), each adding a label and a byte of description, and checks through
// get that none was lost.
func storeCheckConcurrentUpdates(t *testing.T, update func(edit func(labels *[]string, description *string)) error,
	get func() (labels []string, description string, err error)) {
	t.Helper()
	errs := storeRace(func(w int) error {
		return update(func(labels *[]string, description *string) {
			*labels = append(*labels, fmt.Sprintf("l%02d", w))
			*description += "x"
		})
	})
	storeNoErrors(t, errs)
	labels, description, err := get()
	if err != nil {
		t.Fatal(err)
	}
	if len(description) != storeWorkers || len(labels) != storeWorkers {
		t.Errorf("description %q and %d labels after %d concurrent updates: lost updates", description, len(labels), storeWorkers)
	}
}
