package contracttests

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

var errStoreRollback = errors.New("roll back, please")

// storeWantUser fails with why unless username exists as seen from ctx
// exactly when want.
func storeWantUser(t *testing.T, ctx context.Context, s Stores, username string, want bool, why string) {
	t.Helper()
	if storeHasUser(t, ctx, s, username) != want {
		t.Error(why)
	}
}

// storeHasUser reports whether username exists as seen from ctx.
func storeHasUser(t *testing.T, ctx context.Context, s Stores, username string) bool {
	t.Helper()
	_, err := s.Users.GetByUsername(ctx, username)
	switch {
	case err == nil:
		return true
	case errors.Is(err, core.ErrNotFound):
		return false
	}
	t.Fatalf("GetByUsername(%s): %v", username, err)
	return false
}

func storeTxCommitSpansStores(t *testing.T, s Stores) {
	var u domain.User
	var k domain.SSHKey
	var e domain.Email
	var tok domain.Token
	var ev domain.Event
	err := s.Tx.WithinTx(t.Context(), func(ctx context.Context) error {
		u = domain.User{Username: "alice", Email: "alice@example.com", State: domain.UserActive}
		if err := s.Users.Create(ctx, &u); err != nil {
			return err
		}
		k = domain.SSHKey{UserID: u.ID, Title: "k", Key: "ssh-ed25519 AAAA", Fingerprint: "SHA256:k"}
		if err := s.Keys.Create(ctx, &k); err != nil {
			return err
		}
		e = domain.Email{UserID: u.ID, Email: "second@example.com"}
		if err := s.Emails.Create(ctx, &e); err != nil {
			return err
		}
		tok = domain.Token{UserID: u.ID, Name: "t", Digest: "digest", Kind: domain.TokenPersonal}
		if err := s.Tokens.Create(ctx, &tok); err != nil {
			return err
		}
		ev = domain.Event{AuthorID: u.ID, Action: domain.ActionJoined}
		if err := s.Events.Create(ctx, &ev); err != nil {
			return err
		}
		// The transaction sees its own writes through ctx.
		if _, err := s.Keys.Get(ctx, k.ID); err != nil {
			return err
		}
		if _, err := s.Users.Update(ctx, u.ID, func(u *domain.User) error { u.Bio = "in tx"; return nil }); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatalf("WithinTx: %v", err)
	}
	ctx := t.Context()
	if got, err := s.Users.Get(ctx, u.ID); err != nil || got.Bio != "in tx" {
		t.Errorf("user after commit: %+v, %v", got, err)
	}
	if _, err := s.Keys.Get(ctx, k.ID); err != nil {
		t.Errorf("key after commit: %v", err)
	}
	if _, err := s.Emails.Get(ctx, e.ID); err != nil {
		t.Errorf("email after commit: %v", err)
	}
	if _, err := s.Tokens.Get(ctx, tok.ID); err != nil {
		t.Errorf("token after commit: %v", err)
	}
	if _, n, err := s.Events.List(ctx, domain.EventFilter{Readable: domain.ReadScope{All: true}}); err != nil || n != 1 {
		t.Errorf("events after commit: %d, %v", n, err)
	}
}

func storeTxRollbackSpansStores(t *testing.T, s Stores) {
	var userID, keyID, emailID, tokenID int64
	err := s.Tx.WithinTx(t.Context(), func(ctx context.Context) error {
		u := &domain.User{Username: "alice", Email: "alice@example.com", State: domain.UserActive}
		if err := s.Users.Create(ctx, u); err != nil {
			return err
		}
		k := &domain.SSHKey{UserID: u.ID, Title: "k", Key: "ssh-ed25519 AAAA", Fingerprint: "SHA256:k"}
		if err := s.Keys.Create(ctx, k); err != nil {
			return err
		}
		e := &domain.Email{UserID: u.ID, Email: "second@example.com"}
		if err := s.Emails.Create(ctx, e); err != nil {
			return err
		}
		tok := &domain.Token{UserID: u.ID, Name: "t", Digest: "digest", Kind: domain.TokenPersonal}
		if err := s.Tokens.Create(ctx, tok); err != nil {
			return err
		}
		if err := s.Events.Create(ctx, &domain.Event{AuthorID: u.ID, Action: domain.ActionJoined}); err != nil {
			return err
		}
		userID, keyID, emailID, tokenID = u.ID, k.ID, e.ID, tok.ID
		return errStoreRollback
	})
	if err != errStoreRollback {
		t.Fatalf("WithinTx = %v, want fn's error as is", err)
	}
	ctx := t.Context()
	storeWantUser(t, ctx, s, "alice", false, "user survived the rollback")
	_, err = s.Users.Get(ctx, userID)
	storeWantKind(t, err, core.ErrNotFound, "Get rolled-back user")
	_, err = s.Keys.Get(ctx, keyID)
	storeWantKind(t, err, core.ErrNotFound, "Get rolled-back key")
	_, err = s.Emails.Get(ctx, emailID)
	storeWantKind(t, err, core.ErrNotFound, "Get rolled-back email")
	_, err = s.Tokens.Get(ctx, tokenID)
	storeWantKind(t, err, core.ErrNotFound, "Get rolled-back token")
	if _, n, err := s.Events.List(ctx, domain.EventFilter{Readable: domain.ReadScope{All: true}}); err != nil || n != 0 {
		t.Errorf("events after rollback: %d, %v", n, err)
	}
	// Nothing stays taken.
	u := storeUser(t, s, "alice")
	storeKey(t, s, u.ID, "SHA256:k")
	storeEmail(t, s, u.ID, "second@example.com")
}

func storeTxIsolation(t *testing.T, s Stores) {
	outside := t.Context()
	err := s.Tx.WithinTx(outside, func(ctx context.Context) error {
		storeUserIn(t, ctx, s, "alice")
		storeWantUser(t, ctx, s, "alice", true, "the transaction does not see its own write")
		storeWantUser(t, outside, s, "alice", false, "an uncommitted write is visible outside the transaction")
		return nil
	})
	if err != nil {
		t.Fatalf("WithinTx: %v", err)
	}
	storeWantUser(t, outside, s, "alice", true, "the committed write is not visible")
}

// storeUserIn creates a user through ctx (which may carry a transaction).
func storeUserIn(t *testing.T, ctx context.Context, s Stores, name string) *domain.User {
	t.Helper()
	u := &domain.User{Username: name, Email: name + "@example.com", State: domain.UserActive}
	if err := s.Users.Create(ctx, u); err != nil {
		t.Fatalf("create user %s: %v", name, err)
	}
	return u
}

func storeTxPanicRollsBack(t *testing.T, s Stores) {
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want the panic to propagate", r)
			}
		}()
		_ = s.Tx.WithinTx(t.Context(), func(ctx context.Context) error {
			storeUserIn(t, ctx, s, "alice")
			panic("boom")
		})
	}()
	storeWantUser(t, t.Context(), s, "alice", false, "user survived the panic")
	// The transaction was released: a writer gets through at once.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		return s.Users.Create(ctx, &domain.User{Username: "bob", Email: "bob@example.com", State: domain.UserActive})
	}); err != nil {
		t.Fatalf("WithinTx after a panic: %v", err)
	}
}

func storeTxNestedJoins(t *testing.T, s Stores) {
	outside := t.Context()
	err := s.Tx.WithinTx(outside, func(ctx context.Context) error {
		storeUserIn(t, ctx, s, "alice")
		err := s.Tx.WithinTx(ctx, func(ctx context.Context) error {
			storeWantUser(t, ctx, s, "alice", true, "the nested transaction does not see the outer one's write")
			storeUserIn(t, ctx, s, "bob")
			return nil
		})
		if err != nil {
			return err
		}
		storeWantUser(t, ctx, s, "bob", true, "the outer transaction does not see the nested one's write")
		storeWantUser(t, outside, s, "bob", false, "the nested transaction committed on its own")
		return errStoreRollback
	})
	if err != errStoreRollback {
		t.Fatalf("WithinTx = %v, want fn's error as is", err)
	}
	if storeHasUser(t, outside, s, "alice") || storeHasUser(t, outside, s, "bob") {
		t.Error("the outer rollback did not undo the nested work")
	}
}

func storeTxNestedErrorUndoesNested(t *testing.T, s Stores) {
	err := s.Tx.WithinTx(t.Context(), func(ctx context.Context) error {
		storeUserIn(t, ctx, s, "alice")
		err := s.Tx.WithinTx(ctx, func(ctx context.Context) error {
			storeUserIn(t, ctx, s, "bob")
			return errStoreRollback
		})
		if err != errStoreRollback {
			t.Errorf("nested WithinTx = %v, want fn's error as is", err)
		}
		storeWantUser(t, ctx, s, "bob", false, "the failed nested work is still visible")
		storeUserIn(t, ctx, s, "carol")
		return nil
	})
	if err != nil {
		t.Fatalf("WithinTx: %v", err)
	}
	ctx := t.Context()
	if !storeHasUser(t, ctx, s, "alice") || !storeHasUser(t, ctx, s, "carol") {
		t.Error("the outer work was lost")
	}
	storeWantUser(t, ctx, s, "bob", false, "the failed nested work was committed")
}

func storeTxConflictLeavesTxUsable(t *testing.T, s Stores) {
	err := s.Tx.WithinTx(t.Context(), func(ctx context.Context) error {
		alice := storeUserIn(t, ctx, s, "alice")
		err := s.Users.Create(ctx, &domain.User{Username: "ALICE", Email: "x@example.com", State: domain.UserActive})
		storeWantTaken(t, err, "username", "Create a taken username in a transaction")
		if err := s.Keys.Create(ctx, &domain.SSHKey{UserID: alice.ID, Key: "k", Fingerprint: "SHA256:k"}); err != nil {
			return err
		}
		err = s.Keys.Create(ctx, &domain.SSHKey{UserID: alice.ID, Key: "k", Fingerprint: "SHA256:k"})
		storeWantTaken(t, err, "fingerprint", "Create a taken fingerprint in a transaction")
		err = s.Emails.Create(ctx, &domain.Email{UserID: alice.ID, Email: "ALICE@example.com"})
		storeWantTaken(t, err, "email", "Create a taken email in a transaction")
		_, err = s.Users.Update(ctx, alice.ID, func(u *domain.User) error { u.Username = "alice"; u.Email = "x@example.com"; return nil })
		if err != nil {
			return err
		}
		storeUserIn(t, ctx, s, "bob")
		return nil
	})
	if err != nil {
		t.Fatalf("the transaction failed after handled conflicts: %v", err)
	}
	for _, name := range []string{"alice", "bob"} {
		if !storeHasUser(t, t.Context(), s, name) {
			t.Errorf("%s was not committed", name)
		}
	}
	if _, err := s.Users.GetByEmail(t.Context(), "x@example.com"); err != nil {
		t.Errorf("the update after the conflicts was lost: %v", err)
	}
}

func storeTxAfterCommitOrder(t *testing.T, s Stores) {
	var ran []string
	record := func(name string) func(context.Context) {
		return func(context.Context) { ran = append(ran, name) }
	}
	err := s.Tx.WithinTx(t.Context(), func(ctx context.Context) error {
		s.Tx.AfterCommit(ctx, record("first"))
		if err := s.Tx.WithinTx(ctx, func(ctx context.Context) error {
			s.Tx.AfterCommit(ctx, record("nested"))
			return nil
		}); err != nil {
			return err
		}
		storeUserIn(t, ctx, s, "alice")
		s.Tx.AfterCommit(ctx, func(ctx context.Context) {
			// Committed data is visible, and ctx carries no transaction:
			// AfterCommit runs at once.
			storeWantUser(t, ctx, s, "alice", true, "AfterCommit ran before the data was visible")
			if ctx.Err() != nil {
				t.Errorf("AfterCommit got a done context: %v", ctx.Err())
			}
			s.Tx.AfterCommit(ctx, record("inside callback"))
			ran = append(ran, "last")
		})
		if len(ran) != 0 {
			t.Errorf("callbacks ran before commit: %v", ran)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("WithinTx: %v", err)
	}
	want := []string{"first", "nested", "inside callback", "last"}
	if len(ran) != len(want) {
		t.Fatalf("ran %v, want %v", ran, want)
	}
	for i := range want {
		if ran[i] != want[i] {
			t.Fatalf("ran %v, want %v", ran, want)
		}
	}
}

func storeTxAfterCommitNotOnRollback(t *testing.T, s Stores) {
	var ran []string
	record := func(name string) func(context.Context) {
		return func(context.Context) { ran = append(ran, name) }
	}
	err := s.Tx.WithinTx(t.Context(), func(ctx context.Context) error {
		s.Tx.AfterCommit(ctx, record("outer"))
		_ = s.Tx.WithinTx(ctx, func(ctx context.Context) error {
			s.Tx.AfterCommit(ctx, record("nested"))
			return errStoreRollback
		})
		return errStoreRollback
	})
	if err != errStoreRollback {
		t.Fatalf("WithinTx = %v", err)
	}
	if len(ran) != 0 {
		t.Fatalf("callbacks ran after a rollback: %v", ran)
	}
	// A failed nested call drops only its own callbacks.
	err = s.Tx.WithinTx(t.Context(), func(ctx context.Context) error {
		s.Tx.AfterCommit(ctx, record("kept"))
		_ = s.Tx.WithinTx(ctx, func(ctx context.Context) error {
			s.Tx.AfterCommit(ctx, record("dropped"))
			return errStoreRollback
		})
		s.Tx.AfterCommit(ctx, record("kept too"))
		return nil
	})
	if err != nil {
		t.Fatalf("WithinTx: %v", err)
	}
	if len(ran) != 2 || ran[0] != "kept" || ran[1] != "kept too" {
		t.Fatalf("ran %v, want [kept kept too]", ran)
	}
}

func storeTxAfterCommitWithoutTx(t *testing.T, s Stores) {
	ran := false
	s.Tx.AfterCommit(t.Context(), func(context.Context) { ran = true })
	if !ran {
		t.Fatal("AfterCommit without a transaction did not run at once")
	}
}

func storeTxRollbackSpansProjectStores(t *testing.T, s Stores) {
	ctx := t.Context()
	bob := storeUser(t, s, "bob")
	shared := storeGroup(t, s, "shared", nil, domain.Private)
	var userID, nsID, groupID, projectID int64
	err := s.Tx.WithinTx(ctx, func(ctx context.Context) error {
		u := storeUserIn(t, ctx, s, "alice")
		home := &domain.Namespace{Kind: domain.NamespaceUser, Name: "Alice", Path: "alice", OwnerID: &u.ID, Visibility: domain.Public}
		if err := s.Namespaces.Create(ctx, home); err != nil {
			return err
		}
		g := &domain.Namespace{Kind: domain.NamespaceGroup, Name: "G", Path: "g", Visibility: domain.Private}
		if err := s.Namespaces.Create(ctx, g); err != nil {
			return err
		}
		p := &domain.Project{NamespaceID: home.ID, Name: "p", Path: "p", Visibility: domain.Private}
		if err := s.Projects.Create(ctx, p); err != nil {
			return err
		}
		if err := s.Members.Add(ctx, &domain.Member{Source: domain.MemberOfProject, SourceID: p.ID, UserID: bob.ID, AccessLevel: domain.Developer}); err != nil {
			return err
		}
		if err := s.Members.Add(ctx, &domain.Member{Source: domain.MemberOfGroup, SourceID: shared.ID, UserID: bob.ID, AccessLevel: domain.Developer}); err != nil {
			return err
		}
		if err := s.Members.Share(ctx, &domain.ProjectShare{ProjectID: p.ID, GroupID: shared.ID, GroupAccess: domain.Reporter}); err != nil {
			return err
		}
		if ok, err := s.Projects.Star(ctx, bob.ID, p.ID); err != nil || !ok {
			return fmt.Errorf("star: %v, %w", ok, err)
		}
		if _, err := s.Namespaces.Update(ctx, shared.ID, func(n *domain.Namespace) error { n.Path = "renamed"; return nil }); err != nil {
			return err
		}
		// The transaction sees its own writes.
		if got, err := s.Projects.GetByFullPath(ctx, "alice/p"); err != nil || got.StarCount != 1 {
			return fmt.Errorf("GetByFullPath in tx: %+v, %w", got, err)
		}
		userID, nsID, groupID, projectID = u.ID, home.ID, g.ID, p.ID
		return errStoreRollback
	})
	if err != errStoreRollback {
		t.Fatalf("WithinTx = %v, want fn's error as is", err)
	}
	_, err = s.Users.Get(ctx, userID)
	storeWantKind(t, err, core.ErrNotFound, "rolled-back user")
	_, err = s.Namespaces.Get(ctx, nsID)
	storeWantKind(t, err, core.ErrNotFound, "rolled-back namespace")
	_, err = s.Namespaces.Get(ctx, groupID)
	storeWantKind(t, err, core.ErrNotFound, "rolled-back group")
	_, err = s.Projects.Get(ctx, projectID)
	storeWantKind(t, err, core.ErrNotFound, "rolled-back project")
	if ms, err := s.Members.OfUser(ctx, bob.ID); err != nil || len(ms) != 0 {
		t.Errorf("rolled-back memberships: %+v, %v", ms, err)
	}
	if sh, err := s.Members.SharesWithGroups(ctx, []int64{shared.ID}); err != nil || len(sh) != 0 {
		t.Errorf("rolled-back shares: %+v, %v", sh, err)
	}
	if got, err := s.Namespaces.Get(ctx, shared.ID); err != nil || got.FullPath != "shared" {
		t.Errorf("rolled-back rename: %+v, %v", got, err)
	}
	// Nothing stays taken.
	alice := storeUser(t, s, "alice")
	home := storePersonal(t, s, alice)
	storeProject(t, s, home, "p", nil)
	storeGroup(t, s, "g", nil, domain.Private)
}
