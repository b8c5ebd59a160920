package contracttests

import "testing"

// SeedRepoHistory pushes the suite's read fixture (merges, renames, binary
// files, a mode change, a submodule entry, annotated and lightweight tags,
// a tag named like a branch; see seedRich) into the bare repository at
// path, whose HEAD names main, with the git CLI. It returns the fixture's
// commits by name (c1, c2, c3, t1, t2, m4, c5, f1). The SHAs are the same
// on every run.
func SeedRepoHistory(t *testing.T, path string) map[string]string {
	t.Helper()
	return newRepoGit(t).seedRich(path).c
}

// SeedMergeHistory pushes the suite's merge and cherry-pick fixture (see
// seedMerges) into the bare repository at path and returns its commits by
// name (B, K1, X1, M1, P1, P2, MP, U).
func SeedMergeHistory(t *testing.T, path string) map[string]string {
	t.Helper()
	return newRepoGit(t).seedMerges(path).c
}
