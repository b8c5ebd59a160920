package projects_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
)

// group creates a group as root and returns its ID.
func group(c *apptest.Client, path, visibility string) int64 {
	c.T.Helper()
	return apptest.ID(c.Group(c.Srv.RootToken, "name", path, "path", path, "visibility", visibility))
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// pushCommits makes n commits on branch in a scratch clone and pushes them
// into the bare repository at bare.
func pushCommits(t *testing.T, bare, branch string, n int) {
	t.Helper()
	work := t.TempDir()
	apptest.Git(t, work, "init", "--quiet", "-b", branch)
	for i := 0; i < n; i++ {
		if err := os.WriteFile(filepath.Join(work, "file.txt"), []byte(fmt.Sprintf("version %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		apptest.Git(t, work, "add", "file.txt")
		apptest.Git(t, work, "commit", "--quiet", "-m", fmt.Sprintf("commit %d", i))
	}
	apptest.Git(t, work, "push", "--quiet", bare, branch+":refs/heads/"+branch)
}

// waitImport polls the project until import_status leaves scheduled and
// started: fork copies really run in the background.
func waitImport(c *apptest.Client, token string, projectID int64) map[string]any {
	c.T.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		p := c.Expect(200, "GET", fmt.Sprintf("/projects/%d", projectID), token, nil).Object(c.T)
		switch p["import_status"] {
		case "finished", "failed", "none":
			return p
		}
		if time.Now().After(deadline) {
			c.T.Fatalf("project %d: import_status still %v", projectID, p["import_status"])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// same reports whether a holds exactly b, in order.
func same(a []string, b ...string) bool { return slices.Equal(a, b) }
