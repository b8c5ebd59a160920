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
