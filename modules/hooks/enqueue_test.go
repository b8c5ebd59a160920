package hooks

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// The fakes embed their port: a method a test does not expect panics on
// the nil interface, which is how "no hooks, no reads" is checked.

// plRouter answers a project's hooks from hooks and, for project 0, the
// system hooks from system (which the test also lists in hooks, as the
// router includes them for pushes).
type plRouter struct {
	mu     sync.Mutex
	hooks  map[domain.HookEventKind][]int64
	system map[domain.HookEventKind][]int64
	asked  []domain.HookEventKind
}

func (r *plRouter) HooksFor(_ context.Context, projectID int64, kind domain.HookEventKind) ([]int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, kind)
	if projectID == 0 {
		return slices.Clone(r.system[kind]), nil
	}
	return slices.Clone(r.hooks[kind]), nil
}

type plDeliveries struct {
	ports.HookDeliveryStore
	queued []domain.HookDelivery
}

func (d *plDeliveries) EnqueueFor(_ context.Context, hooks []int64, x domain.HookDelivery) (int, error) {
	for _, id := range hooks {
		x.ID, x.HookID = int64(len(d.queued)+1), id
		d.queued = append(d.queued, x)
	}
	return len(hooks), nil
}

type plTx struct {
	ports.TxManager
	after int
}

func (t *plTx) AfterCommit(ctx context.Context, fn func(context.Context)) { t.after++; fn(ctx) }

type plProjects struct{ ports.ProjectStore }

func (plProjects) Get(_ context.Context, id int64) (*domain.Project, error) {
	return &domain.Project{ID: id, NamespaceID: 3, Name: "Diaspora", Path: "diaspora", DefaultBranch: "master",
		Visibility: domain.Public}, nil
}

type plNamespaces struct{ ports.NamespaceStore }

func (plNamespaces) Get(_ context.Context, id int64) (*domain.Namespace, error) {
	return &domain.Namespace{ID: id, Name: "Mike", Path: "mike", FullPath: "mike"}, nil
}

type plUsers struct{ ports.UserStore }

func (plUsers) Get(_ context.Context, id int64) (*domain.User, error) {
	if id != 4 {
		return nil, core.ErrNotFound // deleted meanwhile
	}
	return &domain.User{ID: 4, Username: "jsmith", Name: "John Smith", Email: "john@example.com"}, nil
}

type plLabels struct{ ports.LabelStore }

func (plLabels) List(_ context.Context, projectID int64) ([]domain.Label, error) {
	return []domain.Label{{ID: 1, ProjectID: projectID, Name: "bug", Color: "#ff0000"}}, nil
}

type plIssues struct{ ports.IssueStore }

func (plIssues) GetMany(_ context.Context, ids []int64) ([]domain.Issue, error) {
	return []domain.Issue{{ID: ids[0], IID: 2, ProjectID: 15, Title: "secret", Confidential: true, State: "opened"}}, nil
}

type plReader struct {
	ports.RepoReader
	diffs map[string][]domain.FileDiff
	tag   domain.Tag
}

func (r plReader) Diff(_ context.Context, _, _, to string) ([]domain.FileDiff, error) {
	return r.diffs[to], nil
}

func (r plReader) Tag(_ context.Context, _, name string) (domain.Tag, error) {
	if name != r.tag.Name {
		return domain.Tag{}, core.ErrNotFound
	}
	return r.tag, nil
}

func (plReader) Commit(context.Context, string, string) (domain.Commit, error) {
	return domain.Commit{}, core.ErrNotFound
}

type plClock struct{}

func (plClock) Now() time.Time { return time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC) }

func newTestService(hooks map[domain.HookEventKind][]int64, reads bool, reader plReader) (*Service, *plRouter, *plDeliveries, *plTx) {
	cfg := config.Config{ExternalURL: "https://hearth.example/"}
	cfg.Webhooks.MaxAttempts = 7
	router, deliveries, tx := &plRouter{hooks: hooks}, &plDeliveries{}, &plTx{}
	p := Params{Config: cfg, Log: zap.NewNop(), Clock: plClock{}, Router: router, Deliveries: deliveries, Tx: tx}
	if reads {
		p.Projects, p.Namespaces, p.Users, p.Labels, p.Issues, p.Reader = plProjects{}, plNamespaces{}, plUsers{}, plLabels{}, plIssues{}, reader
	}
	return NewService(p), router, deliveries, tx
}

func TestNoHooksNoReads(t *testing.T) {
	t.Parallel()
	// Every store is nil: any read would panic.
	s, router, deliveries, tx := newTestService(nil, false, plReader{})
	ctx := context.Background()
	pid := int64(15)
	steps := []error{
		s.onPush(ctx, domain.PushEvent{ProjectID: 15, Ref: "refs/heads/master", Commits: []domain.PushCommit{{ID: "a"}}}),
		s.onPush(ctx, domain.PushEvent{ProjectID: 15, Ref: "refs/tags/v1"}),
		s.onIssue(ctx, domain.IssueEvent{Issue: domain.Issue{ProjectID: 15}, Action: domain.ActionCreated}),
		s.onIssue(ctx, domain.IssueEvent{Issue: domain.Issue{ProjectID: 15, Confidential: true}, Action: domain.ActionUpdated}),
		s.onMergeRequest(ctx, domain.MergeRequestEvent{MergeRequest: domain.MergeRequest{ProjectID: 15}, Action: domain.ActionMerged}),
		s.onNote(ctx, domain.NoteEvent{Note: domain.Note{ProjectID: &pid, NoteableType: domain.TargetIssue}}),
		s.onCommitComment(ctx, domain.CommitCommentCreated{Comment: domain.CommitComment{ProjectID: 15}}),
		s.onPipeline(ctx, domain.PipelineEvent{Pipeline: domain.Pipeline{ProjectID: 15, Status: domain.CIRunning}, Previous: domain.CIPending}),
		s.onJob(ctx, domain.JobEvent{Job: domain.Job{ProjectID: 15, PipelineID: 1, Kind: domain.JobBuild, Status: domain.CISuccess}, Previous: domain.CIRunning}),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	want := []domain.HookEventKind{domain.HookPush, domain.HookTagPush, domain.HookIssues, domain.HookConfidentialIssues,
		domain.HookMergeRequests, domain.HookNotes, domain.HookNotes, domain.HookPipelines, domain.HookJobs}
	if !slices.Equal(router.asked, want) {
		t.Errorf("asked the router for %v, want %v", router.asked, want)
	}
	if len(deliveries.queued) != 0 || tx.after != 0 {
		t.Errorf("queued %d, woke %d times without hooks", len(deliveries.queued), tx.after)
	}
}

// Events hooks never receive do not even ask the router.
func TestIgnoredEventsAskNothing(t *testing.T) {
	t.Parallel()
	s, router, _, _ := newTestService(nil, false, plReader{})
	ctx := context.Background()
	pid := int64(15)
	for i, err := range []error{
		s.onNote(ctx, domain.NoteEvent{Note: domain.Note{ProjectID: &pid, System: true}}),
		s.onNote(ctx, domain.NoteEvent{Note: domain.Note{NoteableType: domain.TargetSnippet}}), // a personal snippet
		s.onPipeline(ctx, domain.PipelineEvent{Pipeline: domain.Pipeline{ProjectID: 15, Status: domain.CICreated}}),
		s.onPipeline(ctx, domain.PipelineEvent{Pipeline: domain.Pipeline{ProjectID: 15, Status: domain.CIRunning}, Previous: domain.CIRunning}),
		s.onJob(ctx, domain.JobEvent{Job: domain.Job{ProjectID: 15, PipelineID: 1, Kind: domain.JobBuild, Status: domain.CIPending}, Previous: domain.CICreated}),
		s.onJob(ctx, domain.JobEvent{Job: domain.Job{ProjectID: 15, PipelineID: 1, Kind: domain.JobExternal, Status: domain.CISuccess}, Previous: domain.CIRunning}),
		s.onIssue(ctx, domain.IssueEvent{Issue: domain.Issue{ProjectID: 15}, Action: "moved"}),
	} {
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	if len(router.asked) != 0 {
		t.Errorf("asked the router for %v", router.asked)
	}
}

func TestConfidentialIssueUpdate(t *testing.T) {
	t.Parallel()
	hooks := map[domain.HookEventKind][]int64{domain.HookIssues: {1}, domain.HookConfidentialIssues: {2, 3}}
	s, _, deliveries, tx := newTestService(hooks, true, plReader{})
	deleted := int64(99)
	is := domain.Issue{ID: 30, IID: 2, ProjectID: 15, Title: "secret", Confidential: true, State: "opened",
		AssigneeID: &deleted, Labels: []string{"bug", "gone"}}
	if err := s.onIssue(context.Background(), domain.IssueEvent{Issue: is, Action: domain.ActionUpdated, Actor: 4}); err != nil {
		t.Fatal(err)
	}
	if len(deliveries.queued) != 2 || deliveries.queued[0].HookID != 2 || deliveries.queued[1].HookID != 3 || tx.after != 1 {
		t.Fatalf("queued %+v (woke %d), want hooks 2 and 3 once", deliveries.queued, tx.after)
	}
	d := deliveries.queued[0]
	if d.Event != "Issue Hook" || d.MaxAttempts != 7 || d.Payload != deliveries.queued[1].Payload {
		t.Errorf("delivery = %+v", d)
	}
	ev, err := gitlab.ParseWebhook(gitlab.EventTypeIssue, []byte(d.Payload))
	if err != nil {
		t.Fatal(err)
	}
	got := ev.(*gitlab.IssueEvent)
	a := got.ObjectAttributes
	if a.Action != "update" || a.IID != 2 || !a.Confidential || got.User.Username != "jsmith" ||
		got.Project.PathWithNamespace != "mike/diaspora" || got.Project.WebURL != "https://hearth.example/mike/diaspora" ||
		got.Project.GitSSHURL != "git@hearth.example:mike/diaspora.git" || a.URL != "https://hearth.example/mike/diaspora/issues/2" {
		t.Errorf("decoded %+v / %+v", got, a)
	}
	// The deleted assignee degrades to none; the deleted label is left out.
	if got.Assignee != nil || len(got.Labels) != 1 || got.Labels[0].Title != "bug" {
		t.Errorf("assignee %+v labels %+v", got.Assignee, got.Labels)
	}
}

// A note on a confidential issue reaches only the note hooks that also
// receive confidential issues.
func TestConfidentialNoteHooks(t *testing.T) {
	t.Parallel()
	hooks := map[domain.HookEventKind][]int64{domain.HookNotes: {1, 2, 3}, domain.HookConfidentialIssues: {3, 4}}
	s, _, deliveries, _ := newTestService(hooks, true, plReader{})
	pid := int64(15)
	n := domain.Note{ID: 9, ProjectID: &pid, NoteableType: domain.TargetIssue, NoteableID: 30, AuthorID: 77, Body: "psst"}
	if err := s.onNote(context.Background(), domain.NoteEvent{Note: n, Actor: 77, Confidential: true}); err != nil {
		t.Fatal(err)
	}
	if len(deliveries.queued) != 1 || deliveries.queued[0].HookID != 3 {
		t.Fatalf("queued %+v, want hook 3 only", deliveries.queued)
	}
	ev, err := gitlab.ParseWebhook(gitlab.EventTypeNote, []byte(deliveries.queued[0].Payload))
	if err != nil {
		t.Fatal(err)
	}
	got := ev.(*gitlab.IssueCommentEvent)
	if got.ObjectAttributes.Note != "psst" || got.Issue.IID != 2 || got.ObjectAttributes.NoteableType != "Issue" {
		t.Errorf("decoded %+v", got)
	}
}

func TestPushChangedPathsAndTag(t *testing.T) {
	t.Parallel()
	hooks := map[domain.HookEventKind][]int64{domain.HookPush: {1}, domain.HookTagPush: {1}}
	reader := plReader{
		diffs: map[string][]domain.FileDiff{"c2": {
			{OldPath: "old.txt", NewPath: "old.txt", DeletedFile: true},
			{OldPath: "a.txt", NewPath: "b.txt", RenamedFile: true},
			{OldPath: "new.txt", NewPath: "new.txt", NewFile: true},
			{OldPath: "mod.txt", NewPath: "mod.txt"},
		}},
		tag: domain.Tag{Name: "v1", TargetID: "tagobj", Message: plPtr("Release"), Commit: domain.Commit{ID: "c2"}},
	}
	s, _, deliveries, _ := newTestService(hooks, true, reader)
	ctx := context.Background()
	commits := []domain.PushCommit{{ID: "c2", Message: "two"}, {ID: "c1", Message: "one"}}
	if err := s.onPush(ctx, domain.PushEvent{ProjectID: 15, Actor: 4, Ref: "refs/heads/master", Before: "c0", After: "c2",
		Commits: commits, TotalCommits: 2}); err != nil {
		t.Fatal(err)
	}
	if err := s.onPush(ctx, domain.PushEvent{ProjectID: 15, Actor: 4, Ref: "refs/tags/v1", Before: domain.ZeroID, After: "tagobj",
		Commits: []domain.PushCommit{}}); err != nil {
		t.Fatal(err)
	}
	if len(deliveries.queued) != 2 || deliveries.queued[0].Event != "Push Hook" || deliveries.queued[1].Event != "Tag Push Hook" {
		t.Fatalf("queued %+v", deliveries.queued)
	}
	ev, err := gitlab.ParseWebhook(gitlab.EventTypePush, []byte(deliveries.queued[0].Payload))
	if err != nil {
		t.Fatal(err)
	}
	push := ev.(*gitlab.PushEvent)
	if len(push.Commits) != 2 || push.Commits[1].ID != "c2" || push.UserUsername != "jsmith" || push.CheckoutSHA != "c2" {
		t.Fatalf("decoded %+v", push)
	}
	c := push.Commits[1]
	if !slices.Equal(c.Added, []string{"b.txt", "new.txt"}) || !slices.Equal(c.Modified, []string{"mod.txt"}) ||
		!slices.Equal(c.Removed, []string{"old.txt"}) {
		t.Errorf("added %v modified %v removed %v", c.Added, c.Modified, c.Removed)
	}
	tev, err := gitlab.ParseWebhook(gitlab.EventTypeTagPush, []byte(deliveries.queued[1].Payload))
	if err != nil {
		t.Fatal(err)
	}
	tag := tev.(*gitlab.TagEvent)
	if tag.CheckoutSHA != "c2" || tag.Message != "Release" || tag.Ref != "refs/tags/v1" {
		t.Errorf("decoded tag push %+v", tag)
	}
	if !strings.Contains(deliveries.queued[0].Payload, `"total_commits_count":2`) {
		t.Errorf("payload %s", deliveries.queued[0].Payload)
	}
}

func plPtr[T any](v T) *T { return &v }

type plSnippets struct{ ports.SnippetStore }

func (plSnippets) Get(_ context.Context, projectID, id int64) (*domain.Snippet, error) {
	return &domain.Snippet{ID: id, ProjectID: projectID, Title: "snip", Visibility: domain.Private}, nil
}

// NoteEvent.Confidential also marks notes on private snippets (for the
// feed): those still go to every note hook, as in GitLab.
func TestPrivateSnippetNoteGoesToNoteHooks(t *testing.T) {
	t.Parallel()
	hooks := map[domain.HookEventKind][]int64{domain.HookNotes: {1, 2}, domain.HookConfidentialIssues: {2}}
	s, _, deliveries, _ := newTestService(hooks, true, plReader{})
	s.p.Snippets = plSnippets{}
	pid := int64(15)
	n := domain.Note{ID: 9, ProjectID: &pid, NoteableType: domain.TargetSnippet, NoteableID: 5, AuthorID: 4, Body: "nice"}
	if err := s.onNote(context.Background(), domain.NoteEvent{Note: n, Actor: 4, Confidential: true}); err != nil {
		t.Fatal(err)
	}
	if len(deliveries.queued) != 2 {
		t.Fatalf("queued %+v, want hooks 1 and 2", deliveries.queued)
	}
	ev, err := gitlab.ParseWebhook(gitlab.EventTypeNote, []byte(deliveries.queued[0].Payload))
	if err != nil {
		t.Fatal(err)
	}
	if got := ev.(*gitlab.SnippetCommentEvent); got.Snippet.Title != "snip" || got.ObjectAttributes.Note != "nice" {
		t.Errorf("decoded %+v", got)
	}
}

// System hooks get the push without commits, with its event_name, as a
// "System Hook"; project hooks the full push.
func TestSystemHooksPush(t *testing.T) {
	t.Parallel()
	hooks := map[domain.HookEventKind][]int64{domain.HookPush: {1, 9}}
	reader := plReader{diffs: map[string][]domain.FileDiff{"c1": {{OldPath: "a", NewPath: "a", NewFile: true}}}}
	s, router, deliveries, _ := newTestService(hooks, true, reader)
	router.system = map[domain.HookEventKind][]int64{domain.HookPush: {9}}
	err := s.onPush(context.Background(), domain.PushEvent{ProjectID: 15, Actor: 4, Ref: "refs/heads/master", Before: "c0", After: "c1",
		Commits: []domain.PushCommit{{ID: "c1", Message: "one"}}, TotalCommits: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(deliveries.queued) != 2 {
		t.Fatalf("queued %+v", deliveries.queued)
	}
	proj, sys := deliveries.queued[0], deliveries.queued[1]
	if proj.HookID != 1 || proj.Event != "Push Hook" || !strings.Contains(proj.Payload, `"total_commits_count":1`) ||
		strings.Contains(proj.Payload, "event_name") {
		t.Errorf("project hook delivery %+v", proj)
	}
	if sys.HookID != 9 || sys.Event != "System Hook" || !strings.Contains(sys.Payload, `"event_name":"push"`) ||
		!strings.Contains(sys.Payload, `"commits":[]`) || !strings.Contains(sys.Payload, `"total_commits_count":0`) {
		t.Errorf("system hook delivery %+v", sys)
	}
	ev, err := gitlab.ParseWebhook(gitlab.EventTypePush, []byte(sys.Payload))
	if err != nil {
		t.Fatal(err)
	}
	if p := ev.(*gitlab.PushEvent); p.After != "c1" || p.UserUsername != "jsmith" || p.Project.PathWithNamespace != "mike/diaspora" {
		t.Errorf("system push decoded %+v", p)
	}
}
