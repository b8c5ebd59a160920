package projects_test

import (
	"fmt"
	"testing"
)

// TestPersonalNamespaces: each user has a public personal namespace named
// after them, which follows renames, refuses a username a group holds and
// goes, with its projects and their repositories, when the user goes.
func TestPersonalNamespaces(t *testing.T) {
	eachDriver(t, func(t *testing.T, c client) {
		aliceID, alice := c.user("alice")
		ns := c.expect(200, "GET", "/namespaces", alice, nil).list(t)
		if len(ns) != 1 || ns[0]["path"] != "alice" || ns[0]["name"] != "ALICE" || ns[0]["kind"] != "user" {
			t.Fatalf("personal namespace: %v", ns)
		}
		p := c.project(alice, "name", "work")

		// Renaming the user moves the namespace and the project's path.
		c.expect(200, "PUT", fmt.Sprintf("/users/%d", aliceID), c.srv.RootToken, form("username", "alicia", "name", "Alicia"))
		got := c.expect(200, "GET", fmt.Sprintf("/projects/%d", id(p)), alice, nil).object(t)
		if got["path_with_namespace"] != "alicia/work" || got["namespace"].(map[string]any)["name"] != "Alicia" {
			t.Fatalf("after rename: %v %v", got["path_with_namespace"], got["namespace"])
		}
		c.expect(200, "GET", "/projects/alicia%2Fwork", alice, nil)
		c.expect(404, "GET", "/projects/alice%2Fwork", alice, nil)
		// A name change alone renames the namespace.
		c.expect(200, "PUT", fmt.Sprintf("/users/%d", aliceID), c.srv.RootToken, form("name", "Alicia B"))
		if n := c.expect(200, "GET", "/namespaces", alice, nil).list(t)[0]; n["name"] != "Alicia B" || n["path"] != "alicia" {
			t.Fatalf("after name change: %v", n)
		}

		// A username a group holds is taken: the update rolls back.
		c.group("team", "private")
		c.expectBody(409, `{"message":"Username has already been taken"}`, "PUT", fmt.Sprintf("/users/%d", aliceID), c.srv.RootToken, form("username", "team"))
		if u := c.expect(200, "GET", fmt.Sprintf("/users/%d", aliceID), c.srv.RootToken, nil).object(t); u["username"] != "alicia" {
			t.Fatalf("username after a refused rename: %v", u["username"])
		}
		// So is creating a user with it.
		c.expectBody(409, `{"message":"Username has already been taken"}`, "POST", "/users", c.srv.RootToken,
			form("username", "TEAM", "email", "team@example.com", "name", "Team", "password", "secret-team"))
		if r := c.expect(200, "GET", "/users?username=team", c.srv.RootToken, nil).list(t); len(r) != 0 {
			t.Fatalf("user created despite the taken namespace: %v", r)
		}

		// Deleting the user removes their projects and repositories; a fork
		// of theirs elsewhere stays.
		_, bob := c.user("bob")
		pub := c.project(alice, "name", "shared", "visibility", "public")
		fork := c.expect(201, "POST", fmt.Sprintf("/projects/%d/fork", id(pub)), bob, nil).object(t)
		c.waitImport(bob, id(fork))
		repos := []string{c.repoDir(id(p)), c.repoDir(id(pub))}
		c.expect(200, "DELETE", fmt.Sprintf("/users/%d", aliceID), c.srv.RootToken, nil)
		for _, pid := range []int64{id(p), id(pub)} {
			c.expect(404, "GET", fmt.Sprintf("/projects/%d", pid), c.srv.RootToken, nil)
		}
		for _, r := range repos {
			if exists(r) {
				t.Fatalf("repository %s survived its owner", r)
			}
		}
		f := c.expect(200, "GET", fmt.Sprintf("/projects/%d", id(fork)), bob, nil).object(t)
		lacksKeys(t, f, "forked_from_project")
		for _, n := range c.expect(200, "GET", "/namespaces?per_page=100", c.srv.RootToken, nil).list(t) {
			if n["path"] == "alicia" {
				t.Fatalf("namespace survived its user: %v", n)
			}
		}
		// The username is free again.
		c.user("alicia")
	})
}
