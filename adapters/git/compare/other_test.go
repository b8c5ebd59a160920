package compare_test

import (
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/hearth-forge/hearth/adapters/git/gitcli"
	"github.com/hearth-forge/hearth/core/ports"
)

const zapInfo = zap.InfoLevel

// newOther builds the backend compared with gitcli over root.
// TODO(gogit): a second gitcli until adapters/git/gogit lands.
func newOther(t *testing.T, root string) (string, ports.RepoBackend) {
	t.Helper()
	b, err := gitcli.New(root, zaptest.NewLogger(t, zaptest.Level(zapInfo)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return "gitcli#2", b
}
