package app_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/contracttests"
)

// TestGitLabClient drives the server with the official Go client: every
// call must parse without error.
func TestGitLabClient(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t)
	anon, err := gitlab.NewClient("", gitlab.WithBaseURL(srv.API()))
	if err != nil {
		t.Fatal(err)
	}

	// Sign in with POST /session through the client's own request plumbing.
	req, err := anon.NewRequest(http.MethodPost, "session", map[string]string{"login": "root", "password": apptest.RootPassword}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var session struct {
		PrivateToken string `json:"private_token"`
		IsAdmin      bool   `json:"is_admin"`
	}
	if _, err := anon.Do(req, &session); err != nil || session.PrivateToken == "" || !session.IsAdmin {
		t.Fatalf("session: %v %+v", err, session)
	}
	gl, err := gitlab.NewClient(session.PrivateToken, gitlab.WithBaseURL(srv.API()))
	if err != nil {
		t.Fatal(err)
	}

	me, _, err := gl.Users.CurrentUser()
	if err != nil || me.Username != "root" || !me.IsAdmin || me.CreatedAt == nil {
		t.Fatalf("current user: %v %+v", err, me)
	}
	if v, _, err := gl.Version.GetVersion(); err != nil || v.Version != "9.5.10-hearth" {
		t.Fatalf("version: %v %+v", err, v)
	}

	alice, _, err := gl.Users.CreateUser(&gitlab.CreateUserOptions{
		Username: gitlab.Ptr("alice"), Email: gitlab.Ptr("alice@example.com"), Name: gitlab.Ptr("Alice"),
		Password: gitlab.Ptr("alice-password"), ProjectsLimit: gitlab.Ptr(int64(5)),
	})
	if err != nil || alice.ID == 0 || alice.Email != "alice@example.com" || alice.ProjectsLimit != 5 {
		t.Fatalf("create user: %v %+v", err, alice)
	}
	if _, _, err := gl.Users.ModifyUser(alice.ID, &gitlab.ModifyUserOptions{Bio: gitlab.Ptr("builder")}); err != nil {
		t.Fatalf("modify user: %v", err)
	}
	if u, _, err := gl.Users.GetUser(alice.ID, gitlab.GetUsersOptions{}); err != nil || u.Bio != "builder" {
		t.Fatalf("get user: %v %+v", err, u)
	}

	// Keys and emails for root, and for alice as an administrator.
	key, _, err := gl.Users.AddSSHKey(&gitlab.AddSSHKeyOptions{Title: gitlab.Ptr("laptop"), Key: gitlab.Ptr(contracttests.NewSSHKey("root@laptop"))})
	if err != nil || key.ID == 0 || key.CreatedAt == nil {
		t.Fatalf("add key: %v %+v", err, key)
	}
	if _, _, err := gl.Users.AddSSHKeyForUser(alice.ID, &gitlab.AddSSHKeyOptions{Title: gitlab.Ptr("ci"), Key: gitlab.Ptr(contracttests.NewSSHKey("alice@ci"))}); err != nil {
		t.Fatalf("add key for user: %v", err)
	}
	if keys, _, err := gl.Users.ListSSHKeys(nil); err != nil || len(keys) != 1 || keys[0].Title != "laptop" {
		t.Fatalf("list keys: %v %+v", err, keys)
	}
	if keys, _, err := gl.Users.ListSSHKeysForUser(alice.ID, nil); err != nil || len(keys) != 1 {
		t.Fatalf("list keys for user: %v %+v", err, keys)
	}
	if k, _, err := gl.Users.GetSSHKey(key.ID); err != nil || k.Title != "laptop" {
		t.Fatalf("get key: %v", err)
	}
	if _, err := gl.Users.DeleteSSHKey(key.ID); err != nil {
		t.Fatalf("delete key: %v", err)
	}
	email, _, err := gl.Users.AddEmail(&gitlab.AddEmailOptions{Email: gitlab.Ptr("root.alt@example.com")})
	if err != nil || email.Email != "root.alt@example.com" {
		t.Fatalf("add email: %v %+v", err, email)
	}
	if _, _, err := gl.Users.AddEmailForUser(alice.ID, &gitlab.AddEmailOptions{Email: gitlab.Ptr("alice.alt@example.com")}); err != nil {
		t.Fatalf("add email for user: %v", err)
	}
	if emails, _, err := gl.Users.ListEmails(); err != nil || len(emails) != 1 {
		t.Fatalf("list emails: %v %+v", err, emails)
	}
	if emails, _, err := gl.Users.ListEmailsForUser(alice.ID, nil); err != nil || len(emails) != 1 || emails[0].Email != "alice.alt@example.com" {
		t.Fatalf("list emails for user: %v %+v", err, emails)
	}
	if e, _, err := gl.Users.GetEmail(email.ID); err != nil || e.Email != email.Email {
		t.Fatalf("get email: %v", err)
	}
	if _, err := gl.Users.DeleteEmail(email.ID); err != nil {
		t.Fatalf("delete email: %v", err)
	}

	// Impersonation tokens: create, use, list, get, revoke.
	tok, _, err := gl.Users.CreateImpersonationToken(alice.ID, &gitlab.CreateImpersonationTokenOptions{
		Name: gitlab.Ptr("imp"), Scopes: &[]string{"api"}, ExpiresAt: gitlab.Ptr(time.Now().AddDate(0, 1, 0)),
	})
	if err != nil || tok.Token == "" || !tok.Active || tok.ExpiresAt == nil {
		t.Fatalf("impersonation token: %v %+v", err, tok)
	}
	asAlice, _ := gitlab.NewClient(tok.Token, gitlab.WithBaseURL(srv.API()))
	if u, _, err := asAlice.Users.CurrentUser(); err != nil || u.Username != "alice" {
		t.Fatalf("impersonated current user: %v %+v", err, u)
	}
	if toks, _, err := gl.Users.GetAllImpersonationTokens(alice.ID, &gitlab.GetAllImpersonationTokensOptions{State: gitlab.Ptr("active")}); err != nil || len(toks) != 1 {
		t.Fatalf("list impersonation tokens: %v %+v", err, toks)
	}
	if got, _, err := gl.Users.GetImpersonationToken(alice.ID, tok.ID); err != nil || got.Name != "imp" {
		t.Fatalf("get impersonation token: %v %+v", err, got)
	}
	if _, err := gl.Users.RevokeImpersonationToken(alice.ID, tok.ID); err != nil {
		t.Fatalf("revoke: %v", err)
	}
	if _, _, err := asAlice.Users.CurrentUser(); err == nil {
		t.Fatal("a revoked token still works")
	}
	pat, _, err := gl.Users.CreatePersonalAccessToken(alice.ID, &gitlab.CreatePersonalAccessTokenOptions{Name: gitlab.Ptr("ci"), Scopes: &[]string{"read_user"}})
	if err != nil || pat.Token == "" {
		t.Fatalf("personal access token: %v %+v", err, pat)
	}

	// Block and unblock.
	if err := gl.Users.BlockUser(alice.ID); err != nil {
		t.Fatalf("block: %v", err)
	}
	if u, _, err := gl.Users.GetUser(alice.ID, gitlab.GetUsersOptions{}); err != nil || u.State != "blocked" {
		t.Fatalf("blocked state: %v %+v", err, u)
	}
	if err := gl.Users.UnblockUser(alice.ID); err != nil {
		t.Fatalf("unblock: %v", err)
	}

	// Paginate GET /users past 100 users by following the headers.
	for i := 0; i < 105; i++ {
		if _, _, err := gl.Users.CreateUser(&gitlab.CreateUserOptions{
			Username: gitlab.Ptr(fmt.Sprintf("bulk%03d", i)), Email: gitlab.Ptr(fmt.Sprintf("bulk%03d@example.com", i)),
			Name: gitlab.Ptr("Bulk"), Password: gitlab.Ptr("bulk-password"),
		}); err != nil {
			t.Fatalf("bulk user %d: %v", i, err)
		}
	}
	opt := &gitlab.ListUsersOptions{ListOptions: gitlab.ListOptions{PerPage: 100}}
	seen := map[int64]bool{}
	pages := 0
	for {
		users, resp, err := gl.Users.ListUsers(opt)
		if err != nil {
			t.Fatalf("list users page %d: %v", opt.Page, err)
		}
		pages++
		for _, u := range users {
			if seen[u.ID] {
				t.Fatalf("user %d on two pages", u.ID)
			}
			seen[u.ID] = true
		}
		if resp.TotalItems != 107 || resp.TotalPages != 2 {
			t.Fatalf("totals %d/%d", resp.TotalItems, resp.TotalPages)
		}
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	if len(seen) != 107 || pages != 2 {
		t.Fatalf("saw %d users on %d pages", len(seen), pages)
	}

	if acts, _, err := gl.Users.GetUserActivities(nil); err != nil || len(acts) == 0 {
		t.Fatalf("activities: %v %+v", err, acts)
	}
	if evs, _, err := gl.Users.ListUserContributionEvents(alice.ID, nil); err != nil || len(evs) != 1 || evs[0].ActionName != "joined" {
		t.Fatalf("user events: %v %+v", err, evs)
	}
	if _, err := gl.Users.DeleteUser(alice.ID); err != nil {
		t.Fatalf("delete user: %v", err)
	}
	if _, resp, err := gl.Users.GetUser(alice.ID, gitlab.GetUsersOptions{}); err == nil || resp.StatusCode != 404 {
		t.Fatalf("deleted user still readable: %v", err)
	}
}
