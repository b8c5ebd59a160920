package gitcli_test

import (
	"testing"

	"github.com/hearth-forge/hearth/contracttests"
)

func TestFsck(t *testing.T) { contracttests.RunFsckSuite(t, newRepo) }
