package app_test

import (
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/contracttests"
)

func apiFactory(opts ...apptest.Option) contracttests.APIServerFactory {
	return func(t *testing.T) (contracttests.APIServer, func(time.Duration)) {
		srv := apptest.New(t, opts...)
		return contracttests.APIServer{URL: srv.URL, RootToken: srv.RootToken, RootPassword: apptest.RootPassword}, srv.Advance
	}
}

func TestAPISuiteSQLite(t *testing.T) {
	t.Parallel()
	contracttests.RunAPISuite(t, apiFactory())
}

func TestAPISuitePostgres(t *testing.T) {
	t.Parallel()
	contracttests.RunAPISuite(t, apiFactory(apptest.Postgres()))
}
