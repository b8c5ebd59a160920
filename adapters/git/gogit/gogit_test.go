package gogit_test

import (
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/hearth-forge/hearth/adapters/git/gogit"
	"github.com/hearth-forge/hearth/contracttests"
)

func newRepo(t *testing.T) contracttests.Repo {
	t.Helper()
	root := t.TempDir()
	b, err := gogit.New(root, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	return contracttests.Repo{Backend: b, Root: root}
}

// TestRepoSuite runs beside the package's other tests (whether its cases
// run in parallel with each other is RunRepoSuite's choice; newRepo may be
// called from several goroutines at once).
func TestRepoSuite(t *testing.T) {
	t.Parallel()
	contracttests.RunRepoSuite(t, newRepo)
}
