package app_test

import (
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/contracttests"
	"github.com/hearth-forge/hearth/core/config"
)

func apiFactory(opts ...apptest.Option) contracttests.APIServerFactory {
	return func(t *testing.T) (contracttests.APIServer, func(time.Duration)) {
		srv := apptest.New(t, opts...)
		return contracttests.APIServer{URL: srv.URL, RootToken: srv.RootToken, RootPassword: apptest.RootPassword}, srv.Advance
	}
}

// TestAPISuiteSQLite runs on SQLite and the default git backend, gitcli.
func TestAPISuiteSQLite(t *testing.T) {
	t.Parallel()
	contracttests.RunAPISuite(t, apiFactory())
}

// TestAPISuitePostgres pairs Postgres with the other git backend: the suite
// writes commits and reads branches through the API, which both backends
// serve (it does not speak git smart HTTP, which gogit does not serve).
func TestAPISuitePostgres(t *testing.T) {
	t.Parallel()
	contracttests.RunAPISuite(t, apiFactory(apptest.Postgres(), apptest.Configure(func(c *config.Config) { c.Git.Backend = "gogit" })))
}
