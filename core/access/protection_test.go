package access_test

import (
	"testing"

	"github.com/hearth-forge/hearth/core/domain"
)

// TestProtectionLevels pins who a protected branch rule admits, per role
// (anon user ext guest rep dev master owner admin): to push, and to
// update (push or merge, what accepting a merge request needs).
func TestProtectionLevels(t *testing.T) {
	rule := func(push, merge domain.AccessLevel) []domain.ProtectedBranch {
		return []domain.ProtectedBranch{{Name: "main", PushAccessLevel: push, MergeAccessLevel: merge}}
	}
	cases := []struct {
		name             string
		rules            []domain.ProtectedBranch
		archived         bool
		wantPush, wantUp string
	}{
		{"unprotected", rule(domain.NoAccess, domain.NoAccess)[:0], false, ".....1111", ".....1111"},
		{"masters", rule(domain.Master, domain.Master), false, "......111", "......111"},
		{"developers push", rule(domain.Developer, domain.Master), false, ".....1111", ".....1111"},
		{"developers merge", rule(domain.Master, domain.Developer), false, "......111", ".....1111"},
		{"no one pushes, developers merge", rule(domain.NoAccess, domain.Developer), false, ".........", ".....1111"},
		{"no one merges, masters push", rule(domain.Master, domain.NoAccess), false, "......111", "......111"},
		{"no one", rule(domain.NoAccess, domain.NoAccess), false, ".........", "........."},
		{"archived", rule(domain.Developer, domain.Developer), true, ".........", "........."},
	}
	for _, c := range cases {
		p := project(domain.Private)
		if c.archived {
			archived(p)
		}
		var push, up []byte
		for _, role := range roles {
			tg := target(role, p)
			push = append(push, map[bool]byte{true: '1', false: '.'}[tg.MayPushTo(c.rules, "main")])
			up = append(up, map[bool]byte{true: '1', false: '.'}[tg.MayUpdate(c.rules, "main")])
		}
		if string(push) != c.wantPush || string(up) != c.wantUp {
			t.Errorf("%s: push %s, update %s; want %s, %s", c.name, push, up, c.wantPush, c.wantUp)
		}
	}
}
