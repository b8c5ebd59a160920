package groups_test

import (
	"fmt"
	"slices"

	"github.com/hearth-forge/hearth/app/apptest"
)

// project creates a project in a namespace as token and returns it.
func project(c *apptest.Client, token string, namespaceID int64, path, visibility string) map[string]any {
	c.T.Helper()
	return c.Project(token, "name", path, "path", path, "namespace_id", fmt.Sprint(namespaceID), "visibility", visibility)
}

// same reports whether a holds exactly b, in order.
func same(a []string, b ...string) bool { return slices.Equal(a, b) }
