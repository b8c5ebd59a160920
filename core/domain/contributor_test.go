package domain

import (
	"reflect"
	"testing"
)

func TestContributorTally(t *testing.T) {
	t.Parallel()
	var z ContributorTally
	if got := z.List(); got == nil || len(got) != 0 {
		t.Fatalf("empty tally lists %#v", got)
	}
	var tl ContributorTally
	// Newest first: a blank name gives way to the next non-blank one;
	// emails group exactly (case included).
	for _, c := range [][2]string{
		{" ", "a@x"}, {"Bee", "b@x"}, {"Ann", "a@x"}, {"Old Ann", "a@x"}, {"BEE", "B@x"},
	} {
		tl.Add(c[0], c[1])
	}
	want := []Contributor{{Email: "a@x", Name: "Ann", Commits: 3}, {Email: "b@x", Name: "Bee", Commits: 1}, {Email: "B@x", Name: "BEE", Commits: 1}}
	if got := tl.List(); !reflect.DeepEqual(got, want) {
		t.Errorf("List() = %+v, want %+v", got, want)
	}
}
