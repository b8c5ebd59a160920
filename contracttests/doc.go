// Package contracttests holds Hearth's conformance suites, in the style of
// go-cloud's drivertest and the standard library's fstest.TestFS: a flat
// list of named subtests that any implementation of a port must pass. The
// suites depend on core only, so a third-party adapter imports them from
// its own tests.
//
//	RunStoreSuite(t, newStores)  every store port and the transaction manager
//	RunRepoSuite(t, newRepo)     a git backend (ports.RepoBackend)
//	RunAPISuite(t, newServer)    the whole HTTP API, as GitLab clients drive it
//	RunBlobSuite(t, newBlob)     a blob store (ports.BlobStore): streamed, limited, aborted writes
//	RunRunnerProtocolSuite(t, newServer)  gitlab-runner's side of the runner protocol, over HTTP
//
// Each subtest calls the factory for fresh state (an empty migrated
// database, an empty repository root, a new server) and releases it with
// t.Cleanup. The suites check behaviour, hard parts included: unique IIDs
// under parallel creation, lost updates under row locks, rollback across
// stores, compare-and-swap refs, merge conflicts reported alike by both git
// backends, hostile names ("-x" refs, "../" paths), GitLab's error shapes.
//
// # Running the suites on your adapter
//
// A storage adapter over a database of its own:
//
//	func TestStoreSuite(t *testing.T) {
//		contracttests.RunStoreSuite(t, func(t *testing.T) contracttests.Stores {
//			db := openFreshDatabase(t) // yours: a temp file, a schema per test
//			t.Cleanup(func() { db.Close() })
//			st := mystore.New(db)
//			if err := st.Migrate(t.Context()); err != nil {
//				t.Fatal(err)
//			}
//			return contracttests.Stores{Users: st.Users(), Keys: st.Keys(), ..., Tx: st.Tx()}
//		})
//	}
//
// A git backend:
//
//	func TestRepoSuite(t *testing.T) {
//		contracttests.RunRepoSuite(t, func(t *testing.T) contracttests.Repo {
//			root := t.TempDir()
//			b, err := mygit.New(root)
//			if err != nil {
//				t.Fatal(err)
//			}
//			return contracttests.Repo{Backend: b, Root: root}
//		})
//	}
//
// The suites read repositories back with the git CLI, so git must be on
// PATH. Hearth's own adapters run them in adapters/storage/sqlite,
// adapters/storage/postgres (a fresh database per subtest; without a server
// the tests skip, unless CI is set), adapters/git/gitcli and
// adapters/git/gogit, adapters/blob runs RunBlobSuite; the app runs
// RunAPISuite in app/api_test.go and RunRunnerProtocolSuite in
// app/runner_protocol_test.go. RunnerClient, the suite's runner, also
// drives the app's CI acceptance tests.
package contracttests
