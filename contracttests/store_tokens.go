package contracttests

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

func storeTokenIDs(ts []domain.Token) []int64 {
	return storeIDs(ts, func(t domain.Token) int64 { return t.ID })
}

func storeTokenCreateGet(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	expires := time.Date(2024, 6, 1, 17, 45, 0, 0, time.UTC) // a date: kept as its UTC midnight
	tok := storeToken(t, s, domain.Token{
		UserID: alice.ID, Name: "ci", Digest: domain.TokenDigest("glpat-secret"), Kind: domain.TokenImpersonation,
		Scopes: []string{domain.ScopeAPI, domain.ScopeReadUser}, ExpiresAt: &expires,
		CreatedAt: storeT0, LastUsedAt: storePtr(storeT0.Add(time.Minute)),
	})
	if tok.ID <= 0 {
		t.Fatalf("Create set ID %d", tok.ID)
	}
	want := domain.Token{
		ID: tok.ID, UserID: alice.ID, Name: "ci", Digest: domain.TokenDigest("glpat-secret"), Kind: domain.TokenImpersonation,
		Scopes: []string{"api", "read_user"}, ExpiresAt: storePtr(storeDay(2024, 6, 1)),
		CreatedAt: storeT0, LastUsedAt: storePtr(storeT0.Add(time.Minute)),
	}
	for name, get := range map[string]func() (*domain.Token, error){
		"Get":         func() (*domain.Token, error) { return s.Tokens.Get(ctx, tok.ID) },
		"GetByDigest": func() (*domain.Token, error) { return s.Tokens.GetByDigest(ctx, domain.TokenDigest("glpat-secret")) },
	} {
		got, err := get()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(want, *got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	bare := storeToken(t, s, domain.Token{UserID: alice.ID, Name: "bare", Kind: domain.TokenSession})
	got, err := s.Tokens.Get(ctx, bare.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if len(got.Scopes) != 0 || got.ExpiresAt != nil || got.LastUsedAt != nil || got.Revoked {
		t.Errorf("bare token read back as %+v", got)
	}
	_, err = s.Tokens.Get(ctx, 999999)
	storeWantKind(t, err, core.ErrNotFound, "Get a missing token")
	_, err = s.Tokens.GetByDigest(ctx, domain.TokenDigest("unknown"))
	storeWantKind(t, err, core.ErrNotFound, "GetByDigest of an unknown secret")
}

func storeTokenDigestTaken(t *testing.T, s Stores) {
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	storeToken(t, s, domain.Token{UserID: alice.ID, Name: "a", Digest: "d1"})
	err := s.Tokens.Create(t.Context(), &domain.Token{UserID: bob.ID, Name: "b", Digest: "d1", Kind: domain.TokenPersonal})
	storeWantKind(t, err, core.ErrConflict, "Create with a taken digest")
}

func storeTokenUnknownUser(t *testing.T, s Stores) {
	err := s.Tokens.Create(t.Context(), &domain.Token{UserID: 999999, Name: "x", Digest: "d", Kind: domain.TokenPersonal})
	storeWantKind(t, err, core.ErrNotFound, "Create for a missing user")
}

func storeTokenListStates(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	now := time.Date(2024, 6, 1, 9, 0, 0, 0, time.UTC)
	plain := storeToken(t, s, domain.Token{UserID: alice.ID, Name: "plain"})
	future := storeToken(t, s, domain.Token{UserID: alice.ID, Name: "future", ExpiresAt: storePtr(storeDay(2024, 6, 2))})
	today := storeToken(t, s, domain.Token{UserID: alice.ID, Name: "expires today", ExpiresAt: storePtr(storeDay(2024, 6, 1))})
	past := storeToken(t, s, domain.Token{UserID: alice.ID, Name: "past", ExpiresAt: storePtr(storeDay(2024, 1, 1))})
	revoked := storeToken(t, s, domain.Token{UserID: alice.ID, Name: "revoked", Revoked: true})
	revokedFuture := storeToken(t, s, domain.Token{UserID: alice.ID, Name: "revoked future", ExpiresAt: storePtr(storeDay(2025, 1, 1))})
	if err := s.Tokens.Revoke(ctx, revokedFuture.ID); err != nil {
		t.Fatalf("Revoke: %v", err)
	}
	storeToken(t, s, domain.Token{UserID: bob.ID, Name: "bob's"})

	all := []int64{plain.ID, future.ID, today.ID, past.ID, revoked.ID, revokedFuture.ID}
	cases := []struct {
		state domain.TokenState
		want  []int64
	}{
		{"", all},
		{domain.TokensAll, all},
		{domain.TokensActive, []int64{plain.ID, future.ID}},
		{domain.TokensInactive, []int64{today.ID, past.ID, revoked.ID, revokedFuture.ID}},
	}
	for _, c := range cases {
		got, n, err := s.Tokens.List(ctx, ports.TokenFilter{UserID: alice.ID, State: c.state, Now: now})
		storeWantList(t, "state "+string(c.state), storeTokenIDs(got), n, err, c.want, len(c.want))
		for _, tok := range got {
			if active := tok.Active(now); (c.state == domain.TokensActive && !active) || (c.state == domain.TokensInactive && active) {
				t.Errorf("state %s listed %q, whose Active(now) = %v", c.state, tok.Name, active)
			}
		}
	}
}

func storeTokenListKindsAndPages(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	sess := storeToken(t, s, domain.Token{UserID: alice.ID, Name: "s", Kind: domain.TokenSession})
	pers := storeToken(t, s, domain.Token{UserID: alice.ID, Name: "p", Kind: domain.TokenPersonal})
	imp := storeToken(t, s, domain.Token{UserID: alice.ID, Name: "i", Kind: domain.TokenImpersonation})
	pers2 := storeToken(t, s, domain.Token{UserID: alice.ID, Name: "p2", Kind: domain.TokenPersonal})
	bobs := storeToken(t, s, domain.Token{UserID: bob.ID, Name: "b", Kind: domain.TokenPersonal})

	cases := []struct {
		name      string
		f         ports.TokenFilter
		want      []int64
		wantTotal int
	}{
		{"all kinds", ports.TokenFilter{UserID: alice.ID}, []int64{sess.ID, pers.ID, imp.ID, pers2.ID}, 4},
		{"personal", ports.TokenFilter{UserID: alice.ID, Kinds: []domain.TokenKind{domain.TokenPersonal}}, []int64{pers.ID, pers2.ID}, 2},
		{"personal and session", ports.TokenFilter{UserID: alice.ID, Kinds: []domain.TokenKind{domain.TokenSession, domain.TokenPersonal}}, []int64{sess.ID, pers.ID, pers2.ID}, 3},
		{"impersonation", ports.TokenFilter{UserID: alice.ID, Kinds: []domain.TokenKind{domain.TokenImpersonation}}, []int64{imp.ID}, 1},
		{"every user", ports.TokenFilter{Kinds: []domain.TokenKind{domain.TokenPersonal}}, []int64{pers.ID, pers2.ID, bobs.ID}, 3},
		{"page 2", ports.TokenFilter{UserID: alice.ID, Page: domain.Page{Page: 2, PerPage: 3}}, []int64{pers2.ID}, 4},
		{"page past the end", ports.TokenFilter{UserID: alice.ID, Page: domain.Page{Page: 3, PerPage: 3}}, nil, 4},
	}
	for _, c := range cases {
		got, n, err := s.Tokens.List(ctx, c.f)
		storeWantList(t, c.name, storeTokenIDs(got), n, err, c.want, c.wantTotal)
	}
}

func storeTokenRevoke(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	tok := storeToken(t, s, domain.Token{UserID: alice.ID, Name: "t"})
	if err := s.Tokens.Revoke(ctx, tok.ID); err != nil {
		t.Fatalf("Revoke: %v", err)
	}
	got, err := s.Tokens.GetByDigest(ctx, tok.Digest)
	if err != nil || !got.Revoked {
		t.Fatalf("after Revoke: %+v, %v", got, err)
	}
	if err := s.Tokens.Revoke(ctx, tok.ID); err != nil {
		t.Errorf("Revoke twice: %v", err)
	}
	err = s.Tokens.Revoke(ctx, 999999)
	storeWantKind(t, err, core.ErrNotFound, "Revoke a missing token")
}

func storeTokenTouchLastUsed(t *testing.T, s Stores) {
	ctx := t.Context()
	alice := storeUser(t, s, "alice")
	tok := storeToken(t, s, domain.Token{UserID: alice.ID, Name: "t"})
	at := storeT0.Add(3 * time.Hour)
	if err := s.Tokens.TouchLastUsed(ctx, tok.ID, at); err != nil {
		t.Fatalf("TouchLastUsed: %v", err)
	}
	got, err := s.Tokens.Get(ctx, tok.ID)
	if err != nil || got.LastUsedAt == nil || !got.LastUsedAt.Equal(at) {
		t.Fatalf("LastUsedAt = %v (%v), want %v", got, err, at)
	}
	err = s.Tokens.TouchLastUsed(ctx, 999999, at)
	storeWantKind(t, err, core.ErrNotFound, "TouchLastUsed of a missing token")
}

func storeTokenPruneSessions(t *testing.T, s Stores) {
	ctx := t.Context()
	alice, bob := storeUser(t, s, "alice"), storeUser(t, s, "bob")
	var sessions []int64
	for range 5 {
		sessions = append(sessions, storeToken(t, s, domain.Token{UserID: alice.ID, Name: "session", Kind: domain.TokenSession}).ID)
	}
	pers := storeToken(t, s, domain.Token{UserID: alice.ID, Name: "p", Kind: domain.TokenPersonal})
	imp := storeToken(t, s, domain.Token{UserID: alice.ID, Name: "i", Kind: domain.TokenImpersonation})
	bobs := storeToken(t, s, domain.Token{UserID: bob.ID, Name: "session", Kind: domain.TokenSession})

	if err := s.Tokens.PruneSessions(ctx, alice.ID, 2); err != nil {
		t.Fatalf("PruneSessions: %v", err)
	}
	got, n, err := s.Tokens.List(ctx, ports.TokenFilter{UserID: alice.ID})
	storeWantList(t, "after keeping 2", storeTokenIDs(got), n, err, []int64{sessions[3], sessions[4], pers.ID, imp.ID}, 4)
	if err := s.Tokens.PruneSessions(ctx, alice.ID, 10); err != nil {
		t.Fatalf("PruneSessions: %v", err)
	}
	got, n, err = s.Tokens.List(ctx, ports.TokenFilter{UserID: alice.ID})
	storeWantList(t, "after keeping 10", storeTokenIDs(got), n, err, []int64{sessions[3], sessions[4], pers.ID, imp.ID}, 4)
	if err := s.Tokens.PruneSessions(ctx, alice.ID, 0); err != nil {
		t.Fatalf("PruneSessions: %v", err)
	}
	got, n, err = s.Tokens.List(ctx, ports.TokenFilter{UserID: alice.ID})
	storeWantList(t, "after keeping 0", storeTokenIDs(got), n, err, []int64{pers.ID, imp.ID}, 2)
	if _, err := s.Tokens.Get(ctx, bobs.ID); err != nil {
		t.Errorf("another user's session went too: %v", err)
	}
}
