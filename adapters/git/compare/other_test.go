package compare_test

import (
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/hearth-forge/hearth/adapters/git/gogit"
	"github.com/hearth-forge/hearth/core/ports"
)

const zapInfo = zap.InfoLevel

// newOther builds the backend compared with gitcli over root: the pure-Go
// gogit backend.
func newOther(t *testing.T, root string) (string, ports.RepoBackend) {
	t.Helper()
	b, err := gogit.New(root, zaptest.NewLogger(t, zaptest.Level(zapInfo)))
	if err != nil {
		t.Fatal(err)
	}
	return "gogit", b
}
