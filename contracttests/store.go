package contracttests

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Stores is what a storage adapter hands RunStoreSuite: every store port and
// the transaction manager they share, over one fresh, migrated database.
type Stores struct {
	Users  ports.UserStore
	Keys   ports.KeyStore
	Emails ports.EmailStore
	Tokens ports.TokenStore
	Events ports.EventStore
	// Namespaces, Projects and Members share the database (and so the
	// transactions) of the stores above.
	Namespaces ports.NamespaceStore
	Projects   ports.ProjectStore
	Members    ports.MemberStore
	// ProtectedBranches, Releases and CommitComments hang off projects.
	ProtectedBranches ports.ProtectedBranchStore
	Releases          ports.ReleaseStore
	CommitComments    ports.CommitCommentStore
	// MergeRequests, Notes, Todos and Subscriptions hang off projects and
	// users too.
	MergeRequests ports.MergeRequestStore
	Notes         ports.NoteStore
	Todos         ports.TodoStore
	Subscriptions ports.SubscriptionStore
	// Issues, Milestones, Labels, Awards and Snippets complete the
	// project's tracker.
	Issues     ports.IssueStore
	Milestones ports.MilestoneStore
	Labels     ports.LabelStore
	Awards     ports.AwardStore
	Snippets   ports.SnippetStore
	// TimeTracking keeps issues' and merge requests' time stats; an
	// adapter without it skips its cases.
	TimeTracking ports.TimeTrackingStore
	// Pipelines, Jobs, Runners, Variables and Artifacts are CI's.
	Pipelines ports.PipelineStore
	Jobs      ports.JobStore
	Runners   ports.RunnerStore
	Variables ports.VariableStore
	Artifacts ports.ArtifactStore
	// Triggers are projects' pipeline triggers. An adapter without it
	// skips the trigger part.
	Triggers ports.TriggerStore
	// Hooks are projects' webhooks.
	Hooks ports.HookStore
	// SystemHooks are the instance's; HookRouter finds an event's hooks
	// of both kinds.
	SystemHooks ports.SystemHookStore
	HookRouter  ports.HookRouter
	// HookDeliveries is the webhook outbox.
	HookDeliveries ports.HookDeliveryStore
	// HookEvents are the changes waiting to be fanned out to deliveries.
	HookEvents ports.HookEventStore
	// DeployKeys share the fingerprints of Keys. An adapter without it
	// skips the deploy key part (RunDeployKeyStoreSuite runs it alone).
	DeployKeys ports.DeployKeyStore
	// BroadcastMessages are the instance's banners. An adapter without
	// it skips their cases.
	BroadcastMessages ports.BroadcastMessageStore
	// Settings is the one row of application settings. An adapter
	// without it skips the settings part.
	Settings ports.SettingsStore
	Tx       ports.TxManager
}

// storeCase is one named subtest of RunStoreSuite.
type storeCase struct {
	name string
	fn   func(t *testing.T, s Stores)
}

// RunStoreSuite checks that a storage adapter behaves as core/ports
// documents. Each subtest calls newStores for fresh, empty, migrated stores;
// newStores should release them with t.Cleanup. The subtests run in
// parallel (t.Parallel), so newStores is called from several goroutines at
// once and the stores of one subtest must not share data with another's.
func RunStoreSuite(t *testing.T, newStores func(t *testing.T) Stores) {
	tests := []storeCase{
		{"UserCreateGet", storeUserCreateGet},
		{"UserCreateDefaults", storeUserCreateDefaults},
		{"UserTimesUTC", storeUserTimesUTC},
		{"UserNotFound", storeUserNotFound},
		{"UserUsernameTaken", storeUserUsernameTaken},
		{"UserEmailTaken", storeUserEmailTaken},
		{"UserEmailTakenBySecondary", storeUserEmailTakenBySecondary},
		{"UserIdentityTaken", storeUserIdentityTaken},
		{"UserGetMany", storeUserGetMany},
		{"LookupKeysWithNUL", storeLookupKeysWithNUL},
		{"UserUpdate", storeUserUpdate},
		{"UserUpdateFnError", storeUserUpdateFnError},
		{"UserUpdateNotFound", storeUserUpdateNotFound},
		{"UserUpdateConflicts", storeUserUpdateConflicts},
		{"UserUpdateEmailFreesOld", storeUserUpdateEmailFreesOld},
		{"UserUpdatePromotesOwnSecondary", storeUserUpdatePromotesOwnSecondary},
		{"UserDeleteCascades", storeUserDeleteCascades},
		{"UserListFilters", storeUserListFilters},
		{"UserListPages", storeUserListPages},
		{"UserCount", storeUserCount},
		{"UserTouchActivity", storeUserTouchActivity},
		{"UserListActivity", storeUserListActivity},
		{"KeyCreateGetList", storeKeyCreateGetList},
		{"KeyFingerprintTaken", storeKeyFingerprintTaken},
		{"KeyUnknownUser", storeKeyUnknownUser},
		{"KeyDelete", storeKeyDelete},
		{"EmailCreateGetList", storeEmailCreateGetList},
		{"EmailTaken", storeEmailTaken},
		{"EmailUnknownUser", storeEmailUnknownUser},
		{"EmailDelete", storeEmailDelete},
		{"TokenCreateGet", storeTokenCreateGet},
		{"TokenDigestTaken", storeTokenDigestTaken},
		{"TokenUnknownUser", storeTokenUnknownUser},
		{"TokenListStates", storeTokenListStates},
		{"TokenListKindsAndPages", storeTokenListKindsAndPages},
		{"TokenRevoke", storeTokenRevoke},
		{"TokenTouchLastUsed", storeTokenTouchLastUsed},
		{"TokenPruneSessions", storeTokenPruneSessions},
		{"EventCreateList", storeEventCreateList},
		{"EventFilters", storeEventFilters},
		{"EventOrderAndPages", storeEventOrderAndPages},
		{"EventReadable", storeEventReadable},
		{"NamespaceCreateGet", storeNamespaceCreateGet},
		{"NamespacePathTaken", storeNamespacePathTaken},
		{"NamespaceBadParent", storeNamespaceBadParent},
		{"NamespaceUpdate", storeNamespaceUpdate},
		{"NamespaceRenameRewritesDescendants", storeNamespaceRenameRewritesDescendants},
		{"NamespaceMoveRewritesDescendants", storeNamespaceMoveRewritesDescendants},
		{"NamespaceUpdateConflicts", storeNamespaceUpdateConflicts},
		{"NamespaceAncestorsDescendants", storeNamespaceAncestorsDescendants},
		{"NamespaceOfProjects", storeNamespaceOfProjects},
		{"NamespaceDeleteCascades", storeNamespaceDeleteCascades},
		{"NamespaceListGroups", storeNamespaceListGroups},
		{"NamespaceSearch", storeNamespaceSearch},
		{"ProjectCreateGet", storeProjectCreateGet},
		{"ProjectNameOrPathTaken", storeProjectNameOrPathTaken},
		{"ProjectGetByFullPath", storeProjectGetByFullPath},
		{"ProjectUpdate", storeProjectUpdate},
		{"ProjectDeleteCascades", storeProjectDeleteCascades},
		{"ProjectListReadable", storeProjectListReadable},
		{"ProjectListFilters", storeProjectListFilters},
		{"ProjectListOrder", storeProjectListOrder},
		{"ProjectListPages", storeProjectListPages},
		{"ProjectListManyIDs", storeProjectListManyIDs},
		{"ProjectStars", storeProjectStars},
		{"ProjectForks", storeProjectForks},
		{"ProjectPendingImports", storeProjectPendingImports},
		{"ProjectCountGetMany", storeProjectCountGetMany},
		{"ProjectTouchActivity", storeProjectTouchActivity},
		{"ProtectedBranchProtectUpsert", storeProtectedBranchProtectUpsert},
		{"ProtectedBranchCreateGet", storeProtectedBranchCreateGet},
		{"ProtectedBranchCreateRace", storeProtectedBranchCreateRace},
		{"ProtectedBranchUnprotect", storeProtectedBranchUnprotect},
		{"ProtectedBranchListSorted", storeProtectedBranchListSorted},
		{"ProtectedBranchUnknownProject", storeProtectedBranchUnknownProject},
		{"ReleaseCreateGet", storeReleaseCreateGet},
		{"ReleaseConflict", storeReleaseConflict},
		{"ReleaseUpdate", storeReleaseUpdate},
		{"ReleaseListByTags", storeReleaseListByTags},
		{"ReleaseDelete", storeReleaseDelete},
		{"CommitCommentCreateList", storeCommitCommentCreateList},
		{"CommitCommentPages", storeCommitCommentPages},
		{"RepositoryDeleteProjectCascades", storeRepositoryDeleteProjectCascades},
		{"RepositoryTxRollback", storeRepositoryTxRollback},
		{"MergeRequestCreateGet", storeMergeRequestCreateGet},
		{"MergeRequestIIDs", storeMergeRequestIIDs},
		{"MergeRequestOpenConflict", storeMergeRequestOpenConflict},
		{"MergeRequestUpdate", storeMergeRequestUpdate},
		{"MergeRequestDelete", storeMergeRequestDelete},
		{"MergeRequestGetMany", storeMergeRequestGetMany},
		{"MergeRequestListFilters", storeMergeRequestListFilters},
		{"MergeRequestListReadable", storeMergeRequestListReadable},
		{"MergeRequestListOrderPages", storeMergeRequestListOrderPages},
		{"MergeRequestUserNotesCount", storeMergeRequestUserNotesCount},
		{"MergeRequestOpenOnBranch", storeMergeRequestOpenOnBranch},
		{"MergeRequestLocked", storeMergeRequestLocked},
		{"MergeRequestTxRollback", storeMergeRequestTxRollback},
		{"NoteCreateGetList", storeNoteCreateGetList},
		{"NoteUpdateDelete", storeNoteUpdateDelete},
		{"NoteCountUserNotes", storeNoteCountUserNotes},
		{"TodoCreatePending", storeTodoCreatePending},
		{"TodoList", storeTodoList},
		{"TodoMarkDone", storeTodoMarkDone},
		{"SubscriptionSetGet", storeSubscriptionSetGet},
		{"MemberAddGet", storeMemberAddGet},
		{"MemberConflicts", storeMemberConflicts},
		{"MemberUpdateRemove", storeMemberUpdateRemove},
		{"MemberList", storeMemberList},
		{"MemberOfUserInSources", storeMemberOfUserInSources},
		{"MemberCountOwners", storeMemberCountOwners},
		{"MemberUserDeleteCascades", storeMemberUserDeleteCascades},
		{"ShareCreateList", storeShareCreateList},
		{"ShareConflictsUnshare", storeShareConflictsUnshare},
		{"TxCommitSpansStores", storeTxCommitSpansStores},
		{"TxRollbackSpansStores", storeTxRollbackSpansStores},
		{"TxRollbackSpansProjectStores", storeTxRollbackSpansProjectStores},
		{"TxIsolation", storeTxIsolation},
		{"TxPanicRollsBack", storeTxPanicRollsBack},
		{"TxNestedJoins", storeTxNestedJoins},
		{"TxNestedErrorUndoesNested", storeTxNestedErrorUndoesNested},
		{"TxConflictLeavesTxUsable", storeTxConflictLeavesTxUsable},
		{"TxAfterCommitOrder", storeTxAfterCommitOrder},
		{"TxAfterCommitNotOnRollback", storeTxAfterCommitNotOnRollback},
		{"TxAfterCommitWithoutTx", storeTxAfterCommitWithoutTx},
		{"ConcurrentCreateUsers", storeConcurrentCreateUsers},
		{"ConcurrentUpdateNoLostUpdate", storeConcurrentUpdate},
		{"ConcurrentSameUsername", storeConcurrentSameUsername},
		{"ConcurrentSameEmail", storeConcurrentSameEmail},
		{"ConcurrentTransactions", storeConcurrentTransactions},
		{"ConcurrentSameProjectName", storeConcurrentSameProjectName},
		{"ConcurrentSameGroupPath", storeConcurrentSameGroupPath},
		{"ConcurrentStars", storeConcurrentStars},
		{"ConcurrentProjectWrites", storeConcurrentProjectWrites},
		{"ConcurrentMemberAndNamespaceUpdates", storeConcurrentMemberAndNamespaceUpdates},
		{"ConcurrentOppositeMoves", storeConcurrentOppositeMoves},
		{"ConcurrentRenameAndCreate", storeConcurrentRenameAndCreate},
		{"CreateDuringRename", storeCreateDuringRename},
		{"ConcurrentMergeRequestIIDs", storeConcurrentMergeRequestIIDs},
		{"ConcurrentMergeRequestUpdates", storeConcurrentMergeRequestUpdates},
		{"ConcurrentTodoCreatePending", storeConcurrentTodoCreatePending},
	}
	for _, more := range [][]storeCase{issueStoreCases(), awardStoreCases(), snippetStoreCases(), ciStoreCases(), triggerStoreCases(), artifactKeepCases(), hookStoreCases(), hookDeliveryCases(), hookEventCases(), systemHookCases(), deployKeyStoreCases(), timeTrackingCases(), broadcastStoreCases(), settingsStoreCases()} {
		tests = append(tests, more...)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStores(t))
		})
	}
}

// storeT0 is a fixed instant with microsecond precision, which every
// adapter keeps exactly.
var storeT0 = time.Date(2024, 3, 1, 12, 30, 45, 123456000, time.UTC)

func storeDay(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func storePtr[T any](v T) *T { return &v }

// storeUser creates an active user named name with address name@example.com.
func storeUser(t *testing.T, s Stores, name string) *domain.User {
	t.Helper()
	u := &domain.User{
		Username:  name,
		Name:      "User " + name,
		Email:     name + "@example.com",
		State:     domain.UserActive,
		CreatedAt: storeT0,
		UpdatedAt: storeT0,
	}
	if err := s.Users.Create(t.Context(), u); err != nil {
		t.Fatalf("create user %s: %v", name, err)
	}
	return u
}

func storeKey(t *testing.T, s Stores, userID int64, fingerprint string) *domain.SSHKey {
	t.Helper()
	k := &domain.SSHKey{UserID: userID, Title: "key " + fingerprint, Key: "ssh-ed25519 AAAA" + fingerprint, Fingerprint: fingerprint, CreatedAt: storeT0}
	if err := s.Keys.Create(t.Context(), k); err != nil {
		t.Fatalf("create key %s: %v", fingerprint, err)
	}
	return k
}

func storeEmail(t *testing.T, s Stores, userID int64, addr string) *domain.Email {
	t.Helper()
	e := &domain.Email{UserID: userID, Email: addr, CreatedAt: storeT0}
	if err := s.Emails.Create(t.Context(), e); err != nil {
		t.Fatalf("create email %s: %v", addr, err)
	}
	return e
}

func storeToken(t *testing.T, s Stores, tok domain.Token) *domain.Token {
	t.Helper()
	if tok.Digest == "" {
		tok.Digest = domain.TokenDigest(fmt.Sprintf("secret-%d-%s-%d", tok.UserID, tok.Name, time.Now().UnixNano()))
	}
	if tok.Kind == "" {
		tok.Kind = domain.TokenPersonal
	}
	if tok.CreatedAt.IsZero() {
		tok.CreatedAt = storeT0
	}
	if err := s.Tokens.Create(t.Context(), &tok); err != nil {
		t.Fatalf("create token %s: %v", tok.Name, err)
	}
	return &tok
}

// storeWantKind fails unless err is of kind.
func storeWantKind(t *testing.T, err, kind error, what string) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("%s: got error %v, want kind %v", what, err, kind)
	}
}

// storeWantTaken fails unless err is a conflict with {field: ["has already been taken"]}.
func storeWantTaken(t *testing.T, err error, field, what string) {
	t.Helper()
	storeWantKind(t, err, core.ErrConflict, what)
	want := map[string][]string{field: {"has already been taken"}}
	if diff := cmp.Diff(want, core.Fields(err)); diff != "" {
		t.Fatalf("%s: fields (-want +got):\n%s", what, diff)
	}
}

// storeIDs lists the IDs of xs through id.
func storeIDs[T any](xs []T, id func(T) int64) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = id(x)
	}
	return out
}

func storeUserIDs(us []domain.User) []int64 {
	return storeIDs(us, func(u domain.User) int64 { return u.ID })
}

// storeWantList compares a page of IDs and its total.
func storeWantList(t *testing.T, what string, gotIDs []int64, gotTotal int, err error, wantIDs []int64, wantTotal int) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if wantIDs == nil {
		wantIDs = []int64{}
	}
	if gotIDs == nil {
		gotIDs = []int64{}
	}
	if diff := cmp.Diff(wantIDs, gotIDs); diff != "" {
		t.Errorf("%s: IDs (-want +got):\n%s", what, diff)
	}
	if gotTotal != wantTotal {
		t.Errorf("%s: total = %d, want %d", what, gotTotal, wantTotal)
	}
}

// storeLookupKeysWithNUL: a user, namespace or project looked up by a key
// holding a NUL byte is not found, on both databases (neither takes such
// text in a query; nothing stored holds it).
func storeLookupKeysWithNUL(t *testing.T, s Stores) {
	ctx := t.Context()
	storeUser(t, s, "nul")
	for _, key := range []string{"\x00", "nul\x00", "a\x00b/c"} {
		if _, err := s.Users.GetByUsername(ctx, key); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("user %q: %v, want not found", key, err)
		}
		if _, err := s.Namespaces.GetByFullPath(ctx, key); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("namespace %q: %v, want not found", key, err)
		}
		if _, err := s.Projects.GetByFullPath(ctx, key); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("project %q: %v, want not found", key, err)
		}
	}
}
