package app_test

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/contracttests"
	"github.com/hearth-forge/hearth/core/config"
)

// testRegistrationToken is the instance registration token of the test
// servers (ci.registration_token).
const testRegistrationToken = "instance-registration-token-for-tests"

// ciServerConfig sets what the runner tests need: the instance registration
// token and a 64 MiB artifact limit (the suite uploads 50 MB and checks
// the 413 just over the limit).
func ciServerConfig(more func(*config.Config)) apptest.Option {
	return apptest.Configure(func(c *config.Config) {
		c.CI.RegistrationToken = testRegistrationToken
		c.CI.MaxArtifactsBytes = 64 << 20
		if more != nil {
			more(c)
		}
	})
}

func runnerFactory(memory func() int64, opts ...apptest.Option) contracttests.RunnerServerFactory {
	return func(t *testing.T) contracttests.RunnerServer {
		srv := apptest.New(t, opts...)
		skipWithoutCI(t, srv)
		return contracttests.RunnerServer{
			URL: srv.URL, RootToken: srv.RootToken, RegistrationToken: testRegistrationToken,
			MaxArtifactsBytes: srv.Config.CI.MaxArtifactsBytes, Memory: memory,
		}
	}
}

// TestRunnerProtocolSQLite plays gitlab-runner's side against the app on
// SQLite. The large upload runs here without the memory check, since the
// other tests of the package share the process; TestRunnerArtifactMemory
// measures it alone.
func TestRunnerProtocolSQLite(t *testing.T) {
	t.Parallel()
	contracttests.RunRunnerProtocolSuite(t, runnerFactory(nil, ciServerConfig(nil)))
}

// TestRunnerProtocolPostgres is the same on Postgres.
func TestRunnerProtocolPostgres(t *testing.T) {
	t.Parallel()
	contracttests.RunRunnerProtocolSuite(t, runnerFactory(nil, apptest.Postgres(), ciServerConfig(nil)))
}

// TestRunnerArtifactMemory uploads a 50 MB archive and checks that the
// server's resident memory grew by less than 20 MB. The server runs in
// this process, so its RSS is the process's: VmRSS of /proc/self/status,
// sampled every 5 ms during the upload against a baseline taken after a
// forced GC that returned free memory to the OS (so growth cannot hide in
// free heap the process already held). The client side streams from one
// 32 KiB buffer, so nearly all growth is the server's. The test does not
// call t.Parallel: Go runs it before the parallel tests, alone, so no
// other test's allocations count.
func TestRunnerArtifactMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc/self/status to read the resident memory from")
	}
	var once sync.Once
	memory := func() int64 {
		once.Do(debug.FreeOSMemory)
		return residentBytes(t)
	}
	contracttests.RunRunnerArtifactMemory(t, runnerFactory(memory, ciServerConfig(nil)))
}

// residentBytes is VmRSS of /proc/self/status.
func residentBytes(t *testing.T) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Errorf("read resident memory: %v", err)
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Errorf("VmRSS %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Error("no VmRSS in /proc/self/status")
	return 0
}

// skipWithoutCI skips while main lacks the CI routes (the pipelines and
// runners modules land one by one): an unrouted path answers GitLab's
// {"error":"404 Not Found"}, a routed one anything else. Remove once CI
// is on main.
func skipWithoutCI(t testing.TB, srv *apptest.Server) {
	t.Helper()
	for _, probe := range []struct{ method, path string }{
		{"GET", "/projects/0/pipelines"}, {"POST", "/runners/verify"}, {"GET", "/projects/0/jobs"},
	} {
		resp, body := srv.Do(t, probe.method, probe.path, srv.RootToken, nil)
		if resp.StatusCode == 404 && strings.Contains(string(body), `"error":"404 Not Found"`) {
			t.Skipf("%s %s is not routed yet: CI has not landed", probe.method, probe.path)
		}
	}
}
