package projects_test

import (
	"fmt"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

// TestPersonalNamespaces: each user has a public personal namespace named
// after them, which follows renames, refuses a username a group holds and
// goes, with its projects and their repositories, when the user goes.
func TestPersonalNamespaces(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		aliceID, alice := c.User("alice")
		ns := c.Expect(200, "GET", "/namespaces", alice, nil).List(t)
		if len(ns) != 1 || ns[0]["path"] != "alice" || ns[0]["name"] != "ALICE" || ns[0]["kind"] != "user" {
			t.Fatalf("personal namespace: %v", ns)
		}
		p := c.Project(alice, "name", "work")

		// Renaming the user moves the namespace and the project's path.
		c.Expect(200, "PUT", fmt.Sprintf("/users/%d", aliceID), c.Srv.RootToken, apptest.Form("username", "alicia", "name", "Alicia"))
		got := c.Expect(200, "GET", fmt.Sprintf("/projects/%d", apptest.ID(p)), alice, nil).Object(t)
		if got["path_with_namespace"] != "alicia/work" || got["namespace"].(map[string]any)["name"] != "Alicia" {
			t.Fatalf("after rename: %v %v", got["path_with_namespace"], got["namespace"])
		}
		c.Expect(200, "GET", "/projects/alicia%2Fwork", alice, nil)
		c.Expect(404, "GET", "/projects/alice%2Fwork", alice, nil)
		// A name change alone renames the namespace.
		c.Expect(200, "PUT", fmt.Sprintf("/users/%d", aliceID), c.Srv.RootToken, apptest.Form("name", "Alicia B"))
		if n := c.Expect(200, "GET", "/namespaces", alice, nil).List(t)[0]; n["name"] != "Alicia B" || n["path"] != "alicia" {
			t.Fatalf("after name change: %v", n)
		}

		// A username a group holds is taken: the update rolls back.
		group(c, "team", "private")
		c.ExpectBody(409, `{"message":"Username has already been taken"}`, "PUT", fmt.Sprintf("/users/%d", aliceID), c.Srv.RootToken, apptest.Form("username", "team"))
		if u := c.Expect(200, "GET", fmt.Sprintf("/users/%d", aliceID), c.Srv.RootToken, nil).Object(t); u["username"] != "alicia" {
			t.Fatalf("username after a refused rename: %v", u["username"])
		}
		// So is creating a user with it.
		c.ExpectBody(409, `{"message":"Username has already been taken"}`, "POST", "/users", c.Srv.RootToken,
			apptest.Form("username", "TEAM", "email", "team@example.com", "name", "Team", "password", "secret-team"))
		if r := c.Expect(200, "GET", "/users?username=team", c.Srv.RootToken, nil).List(t); len(r) != 0 {
			t.Fatalf("user created despite the taken namespace: %v", r)
		}

		// Deleting the user removes their projects and repositories; a fork
		// of theirs elsewhere stays.
		_, bob := c.User("bob")
		pub := c.Project(alice, "name", "shared", "visibility", "public")
		fork := c.Expect(201, "POST", fmt.Sprintf("/projects/%d/fork", apptest.ID(pub)), bob, nil).Object(t)
		waitImport(c, bob, apptest.ID(fork))
		repos := []string{c.Srv.RepoDir(apptest.ID(p)), c.Srv.RepoDir(apptest.ID(pub))}
		c.Expect(200, "DELETE", fmt.Sprintf("/users/%d", aliceID), c.Srv.RootToken, nil)
		for _, pid := range []int64{apptest.ID(p), apptest.ID(pub)} {
			c.Expect(404, "GET", fmt.Sprintf("/projects/%d", pid), c.Srv.RootToken, nil)
		}
		for _, r := range repos {
			if exists(r) {
				t.Fatalf("repository %s survived its owner", r)
			}
		}
		f := c.Expect(200, "GET", fmt.Sprintf("/projects/%d", apptest.ID(fork)), bob, nil).Object(t)
		apptest.LacksKeys(t, f, "forked_from_project")
		for _, n := range c.Expect(200, "GET", "/namespaces?per_page=100", c.Srv.RootToken, nil).List(t) {
			if n["path"] == "alicia" {
				t.Fatalf("namespace survived its user: %v", n)
			}
		}
		// The username is free again.
		c.User("alicia")
	})
}
