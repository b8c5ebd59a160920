package app_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/modules/users"
)

// Benchmarks of the authenticated hot paths, on both storage drivers:
//
//	go test -run '^$' -bench . -benchtime 2000x ./app/
func BenchmarkGetUser(b *testing.B) {
	for _, driver := range []string{"sqlite", "postgres"} {
		b.Run(driver, func(b *testing.B) {
			srv := apptest.New(b, apptest.Driver(driver), quietLogs())
			benchGET(b, srv, "/user")
		})
	}
}

func BenchmarkListUsers100(b *testing.B) {
	for _, driver := range []string{"sqlite", "postgres"} {
		b.Run(driver, func(b *testing.B) {
			srv := apptest.New(b, apptest.Driver(driver), quietLogs())
			ctx := context.Background()
			for i := 0; i < 150; i++ {
				if _, err := srv.Users.CreateUser(ctx, nil, users.CreateUserInput{
					Username: fmt.Sprintf("bench%03d", i), Email: fmt.Sprintf("bench%03d@example.com", i),
					Name: "Bench", Password: "bench-password",
				}); err != nil {
					b.Fatal(err)
				}
			}
			benchGET(b, srv, "/users?per_page=100")
		})
	}
}

// quietLogs keeps the access log (info) as production does, without debug lines.
func quietLogs() apptest.Option {
	return apptest.Configure(func(c *config.Config) { c.Log.Level = "info" })
}

func benchGET(b *testing.B, srv *apptest.Server, path string) {
	benchGETAs(b, srv, path, srv.RootToken)
}

func benchGETAs(b *testing.B, srv *apptest.Server, path, token string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	url := srv.API() + path
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest(http.MethodGet, url, nil)
			if token != "" {
				req.Header.Set("PRIVATE-TOKEN", token)
			}
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}
