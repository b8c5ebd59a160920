package issuable

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/core"
)

func TestNewMentions(t *testing.T) {
	got := NewMentions("hi @Alice and @bob, mail x@carol.com, again @alice; @dave.", "@bob was here")
	if want := []string{"alice", "dave"}; !reflect.DeepEqual(got, want) {
		t.Errorf("NewMentions = %v, want %v", got, want)
	}
	many := ""
	for i := 0; i < 2*MaxMentions; i++ {
		many += " @user" + strings.Repeat("x", i)
	}
	if n := len(NewMentions(many, "")); n != MaxMentions {
		t.Errorf("%d mentions kept, want %d", n, MaxMentions)
	}
}

func TestNormalizeLabelsAndTitle(t *testing.T) {
	if got := NormalizeLabels([]string{" b", "a", "", "b ", "a"}); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("NormalizeLabels = %v", got)
	}
	if err := ValidTitle("  "); !errors.Is(err, core.ErrInvalid) {
		t.Errorf("blank title: %v", err)
	}
	if err := ValidTitle(strings.Repeat("é", MaxTitle)); err != nil {
		t.Errorf("255 characters: %v", err)
	}
	if err := ValidTitle(strings.Repeat("é", MaxTitle+1)); err == nil {
		t.Error("256 characters accepted")
	}
}

func TestOrderAndFilters(t *testing.T) {
	if col, asc, err := Order("", ""); col != "created_at" || asc || err != nil {
		t.Errorf("default order: %s %v %v", col, asc, err)
	}
	if col, asc, err := Order("updated_at", "asc"); col != "updated_at" || !asc || err != nil {
		t.Errorf("updated_at asc: %s %v %v", col, asc, err)
	}
	for _, bad := range [][2]string{{"title", ""}, {"", "up"}} {
		if _, _, err := Order(bad[0], bad[1]); !errors.Is(err, core.ErrInvalid) {
			t.Errorf("Order%v: %v", bad, err)
		}
	}
	if all, none := LabelFilter([]string{"no label"}); all != nil || !none {
		t.Errorf("No Label: %v %v", all, none)
	}
	if all, none := LabelFilter([]string{"b", "a"}); !reflect.DeepEqual(all, []string{"a", "b"}) || none {
		t.Errorf("labels: %v %v", all, none)
	}
	if !NoMilestone("none") || !NoMilestone("No Milestone") || NoMilestone("v1") {
		t.Error("NoMilestone")
	}
}

func TestSubscribed(t *testing.T) {
	yes, no := true, false
	assignee := int64(3)
	cases := []struct {
		explicit *bool
		user     int64
		want     bool
	}{
		{nil, 1, true}, {nil, 3, true}, {nil, 2, false}, {nil, 0, false},
		{&no, 1, false}, {&yes, 2, true},
	}
	for _, c := range cases {
		if got := Subscribed(c.explicit, 1, &assignee, c.user); got != c.want {
			t.Errorf("Subscribed(%v, user %d) = %v, want %v", c.explicit, c.user, got, c.want)
		}
	}
}
