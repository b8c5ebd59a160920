package app_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

// BenchmarkHotReads measures the hot authenticated and anonymous reads of
// issue 14 over HTTP, on both storage drivers:
//
//	go test ./app -run '^$' -bench HotReads -benchtime 2000x
func BenchmarkHotReads(b *testing.B) {
	for _, driver := range []string{"sqlite", "postgres"} {
		b.Run(driver, func(b *testing.B) {
			srv := apptest.New(b, apptest.Driver(driver), quietLogs())
			var p struct{ ID int64 }
			srv.JSON(b, http.MethodPost, "/projects", srv.RootToken, url.Values{"name": {"hot"}, "visibility": {"public"}}, http.StatusCreated, &p)
			project := fmt.Sprintf("/projects/%d", p.ID)
			b.Run("version-token", func(b *testing.B) { benchGET(b, srv, "/version") })
			b.Run("project-token", func(b *testing.B) { benchGET(b, srv, project) })
			b.Run("project-anonymous", func(b *testing.B) { benchGETAs(b, srv, project, "") })
		})
	}
}
