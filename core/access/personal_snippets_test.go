package access_test

import (
	"testing"

	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// TestPersonalSnippetAbilities: who reads, changes and creates personal
// snippets of each visibility, per caller. Each want string has one
// letter per visibility (private, internal, public): r reads, a changes,
// - neither.
func TestPersonalSnippetAbilities(t *testing.T) {
	t.Parallel()
	active := func(u domain.User) *domain.Caller {
		u.State = domain.UserActive
		return &domain.Caller{User: &u}
	}
	blockedAuthor := active(domain.User{ID: selfID})
	blockedAuthor.User.State = domain.UserBlocked
	adminJob := active(domain.User{ID: 99, Admin: true})
	adminJob.Job = &domain.Job{ID: 1}
	for _, tc := range []struct {
		name   string
		c      *domain.Caller
		want   string
		create bool
	}{
		{"anonymous", nil, "--r", false},
		{"author", active(domain.User{ID: selfID}), "aaa", true},
		{"external author", active(domain.User{ID: selfID, External: true}), "aaa", false},
		{"other user", active(domain.User{ID: 99}), "-rr", true},
		{"external user", active(domain.User{ID: 99, External: true}), "--r", false},
		{"admin", active(domain.User{ID: 99, Admin: true}), "aaa", true},
		{"admin's job token", adminJob, "-rr", true},
		{"blocked author", blockedAuthor, "--r", false},
	} {
		got := ""
		for _, v := range []domain.Visibility{domain.Private, domain.Internal, domain.Public} {
			sn := &domain.Snippet{AuthorID: selfID, Visibility: v}
			switch read, admin := access.ReadPersonalSnippet(tc.c, sn), access.AdminPersonalSnippet(tc.c, sn); {
			case admin && read:
				got += "a"
			case admin:
				got += "?"
			case read:
				got += "r"
			default:
				got += "-"
			}
		}
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
		if c := access.CreatePersonalSnippet(tc.c); c != tc.create {
			t.Errorf("%s: create %v, want %v", tc.name, c, tc.create)
		}
	}
}
