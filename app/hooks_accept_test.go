package app_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
)

// Acceptance tests of webhooks: real changes through the API and git push
// reach a loopback receiver as GitLab's payloads, decoded by go-gitlab's
// ParseWebhook.

// received is one POST the receiver got.
type received struct {
	path   string
	header http.Header
	body   []byte
}

// hookReceiver records every POST; paths under /fail answer 500 "boom".
type hookReceiver struct {
	*httptest.Server
	mu  sync.Mutex
	got []received
}

func newHookReceiver(t *testing.T) *hookReceiver {
	r := &hookReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{path: req.URL.Path, header: req.Header.Clone(), body: body})
		r.mu.Unlock()
		if strings.HasPrefix(req.URL.Path, "/fail") {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(r.Close)
	return r
}

// matching returns the deliveries to path of event that go-gitlab decodes
// and match accepts.
func (r *hookReceiver) matching(path, event string, match func(ev any) bool) ([]received, []any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []received
	var evs []any
	for _, d := range r.got {
		if d.path != path || d.header.Get("X-Gitlab-Event") != event {
			continue
		}
		ev, err := gitlab.ParseWebhook(gitlab.EventType(event), d.body)
		if err == nil && match(ev) {
			out = append(out, d)
			evs = append(evs, ev)
		}
	}
	return out, evs
}

// wait polls (bounded) until one delivery to path of event matches, then
// checks it is the only one and its headers; it returns the decoded event.
func (r *hookReceiver) wait(t *testing.T, path, event string, match func(ev any) bool) any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ds, evs := r.matching(path, event, match)
		if len(ds) > 0 {
			if len(ds) > 1 {
				t.Errorf("%s %s: %d deliveries, want one", path, event, len(ds))
			}
			d := ds[0]
			if tok := d.header.Get("X-Gitlab-Token"); tok != "tok"+strings.ReplaceAll(path, "/", "-") {
				t.Errorf("%s %s: X-Gitlab-Token %q", path, event, tok)
			}
			if ct := d.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("%s %s: Content-Type %q", path, event, ct)
			}
			if ua := d.header.Get("User-Agent"); !strings.Contains(ua, "Hearth") {
				t.Errorf("%s %s: User-Agent %q", path, event, ua)
			}
			if gitlab.HookEventType(&http.Request{Header: d.header}) != gitlab.EventType(event) {
				t.Errorf("%s: go-gitlab reads the event type %q", path, gitlab.HookEventType(&http.Request{Header: d.header}))
			}
			return evs[0]
		}
		if time.Now().After(deadline) {
			r.mu.Lock()
			var seen []string
			for _, d := range r.got {
				if d.path == path {
					seen = append(seen, d.header.Get("X-Gitlab-Event")+" "+string(d.body))
				}
			}
			r.mu.Unlock()
			t.Fatalf("%s: no matching %s in 10s; got:\n%s", path, event, strings.Join(seen, "\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// hookEnv is one project with its hooks on a server that may send to
// loopback addresses.
type hookEnv struct {
	t    *testing.T
	srv  *apptest.Server
	rcv  *hookReceiver
	id   int64
	path string // path_with_namespace
}

func newHookEnv(t *testing.T, srv *apptest.Server, rcv *hookReceiver, name string) *hookEnv {
	t.Helper()
	var p struct {
		ID   int64
		Path string `json:"path_with_namespace"`
	}
	srv.JSON(t, "POST", "/projects", srv.RootToken, url.Values{"name": {name}, "visibility": {"private"}}, 201, &p)
	return &hookEnv{t: t, srv: srv, rcv: rcv, id: p.ID, path: p.Path}
}

func (e *hookEnv) api(format string, args ...any) string {
	return fmt.Sprintf("/projects/%d", e.id) + fmt.Sprintf(format, args...)
}

// hook adds a hook sending to the receiver at /name with token
// "tok-name", subscribed to the events named (push_events off unless
// named), and returns its ID.
func (e *hookEnv) hook(name string, events ...string) int64 {
	e.t.Helper()
	form := url.Values{"url": {e.rcv.URL + "/" + name}, "token": {"tok-" + name}, "push_events": {"false"}}
	for _, ev := range events {
		form.Set(ev, "true")
	}
	var h struct{ ID int64 }
	e.srv.JSON(e.t, "POST", e.api("/hooks"), e.srv.RootToken, form, 201, &h)
	return h.ID
}

// commit writes files on branch through the API and returns the SHA.
func (e *hookEnv) commit(branch, start string, files map[string]string) string {
	e.t.Helper()
	var actions []map[string]string
	for path, content := range files {
		actions = append(actions, map[string]string{"action": "create", "file_path": path, "content": content})
	}
	body := map[string]any{"branch": branch, "commit_message": "add " + branch, "actions": actions}
	if start != "" {
		body["start_branch"] = start
	}
	var c struct{ ID string }
	e.srv.JSON(e.t, "POST", e.api("/repository/commits"), e.srv.RootToken, body, 201, &c)
	return c.ID
}

// queued is how many deliveries the outbox holds for a hook: final for
// the events whose deliveries to some hook were seen (each event is fanned
// out to all its hooks in one transaction).
func (e *hookEnv) queued(hookID int64) int {
	e.t.Helper()
	_, total, err := e.srv.Store.HookDeliveries().List(context.Background(), hookID, domain.Page{Page: 1, PerPage: 100})
	if err != nil {
		e.t.Fatal(err)
	}
	return total
}

func hookServerConfig() apptest.Option {
	return ciServerConfig(func(c *config.Config) {
		c.Webhooks.AllowLocalRequests = true
		c.Webhooks.PollInterval = 50 * time.Millisecond
	})
}

func TestWebhookDeliveries(t *testing.T) {
	t.Parallel()
	for _, driver := range []string{"sqlite", "postgres"} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			srv := apptest.New(t, apptest.Driver(driver), hookServerConfig())
			rcv := newHookReceiver(t)
			t.Run("push", func(t *testing.T) { t.Parallel(); testPushHooks(t, srv, rcv) })
			t.Run("issues", func(t *testing.T) { t.Parallel(); testIssueHooks(t, srv, rcv) })
			t.Run("notes", func(t *testing.T) { t.Parallel(); testNoteHooks(t, srv, rcv) })
			t.Run("merge requests", func(t *testing.T) { t.Parallel(); testMergeRequestHooks(t, srv, rcv) })
			t.Run("ci", func(t *testing.T) { t.Parallel(); testCIHooks(t, srv, rcv) })
			t.Run("test endpoint", func(t *testing.T) { t.Parallel(); testHookTestEndpoint(t, srv, rcv) })
		})
	}
}

// testPushHooks pushes over HTTP with git: a new branch, a second push
// adding, changing and removing files, and an annotated tag.
func testPushHooks(t *testing.T, srv *apptest.Server, rcv *hookReceiver) {
	e := newHookEnv(t, srv, rcv, "pushed")
	e.hook(srv.Config.Storage.Driver+"-push", "push_events", "tag_push_events")
	path := "/" + srv.Config.Storage.Driver + "-push"
	u, err := url.Parse(srv.URL + "/" + e.path + ".git")
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword("root", apptest.RootPassword)
	work := t.TempDir()
	apptest.Git(t, work, "init", "-q", "-b", "master")
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(work, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "a\n")
	write("b.txt", "b\n")
	apptest.Git(t, work, "add", ".")
	apptest.Git(t, work, "commit", "-q", "-m", "first")
	first := apptest.Git(t, work, "rev-parse", "HEAD")
	apptest.Git(t, work, "push", "-q", u.String(), "master")

	ev := rcv.wait(t, path, "Push Hook", func(ev any) bool { p, ok := ev.(*gitlab.PushEvent); return ok && p.After == first })
	push := ev.(*gitlab.PushEvent)
	if push.ObjectKind != "push" || push.Ref != "refs/heads/master" || push.Before != domain.ZeroID || push.CheckoutSHA != first ||
		push.UserUsername != "root" || push.ProjectID != e.id || push.Project.PathWithNamespace != e.path ||
		push.Project.WebURL != srv.Config.ExternalURL+"/"+e.path || push.TotalCommitsCount != 1 || len(push.Commits) != 1 {
		t.Errorf("first push: %+v", push)
	} else if c := push.Commits[0]; c.ID != first || c.Message != "first\n" || !slices.Equal(c.Added, []string{"a.txt", "b.txt"}) {
		t.Errorf("first push commit: %+v", c)
	}

	write("a.txt", "a2\n")
	write("c.txt", "c\n")
	apptest.Git(t, work, "rm", "-q", "b.txt")
	apptest.Git(t, work, "add", ".")
	apptest.Git(t, work, "commit", "-q", "-m", "second")
	second := apptest.Git(t, work, "rev-parse", "HEAD")
	apptest.Git(t, work, "push", "-q", u.String(), "master")
	ev = rcv.wait(t, path, "Push Hook", func(ev any) bool { p, ok := ev.(*gitlab.PushEvent); return ok && p.After == second })
	push = ev.(*gitlab.PushEvent)
	if push.Before != first || push.TotalCommitsCount != 1 || len(push.Commits) != 1 {
		t.Errorf("second push: %+v", push)
	} else if c := push.Commits[0]; !slices.Equal(c.Added, []string{"c.txt"}) || !slices.Equal(c.Modified, []string{"a.txt"}) ||
		!slices.Equal(c.Removed, []string{"b.txt"}) || c.URL != push.Project.WebURL+"/commit/"+second {
		t.Errorf("second push commit: %+v", c)
	}

	apptest.Git(t, work, "tag", "-a", "v1.0", "-m", "Release 1.0")
	apptest.Git(t, work, "push", "-q", u.String(), "v1.0")
	ev = rcv.wait(t, path, "Tag Push Hook", func(ev any) bool { p, ok := ev.(*gitlab.TagEvent); return ok && p.Ref == "refs/tags/v1.0" })
	tag := ev.(*gitlab.TagEvent)
	if tag.ObjectKind != "tag_push" || tag.CheckoutSHA != second || tag.Before != domain.ZeroID || tag.After == second ||
		tag.Message != "Release 1.0" || tag.UserUsername != "root" || tag.Project.PathWithNamespace != e.path {
		t.Errorf("tag push: %+v", tag)
	}
}

// testIssueHooks: open, update, close and reopen reach the issue hook; a
// confidential issue and a note on it reach only the hook that asked for
// confidential issues.
func testIssueHooks(t *testing.T, srv *apptest.Server, rcv *hookReceiver) {
	d := srv.Config.Storage.Driver
	e := newHookEnv(t, srv, rcv, "tracked")
	plain := e.hook(d+"-issues", "issues_events", "note_events")
	e.hook(d+"-conf", "confidential_issues_events", "note_events")
	var is struct{ ID, IID int64 }
	srv.JSON(t, "POST", e.api("/issues"), srv.RootToken, url.Values{"title": {"Broken"}, "description": {"It is."}}, 201, &is)
	steps := []struct {
		action string
		form   url.Values
	}{
		{"open", nil},
		{"update", url.Values{"title": {"Broken badly"}}},
		{"close", url.Values{"state_event": {"close"}}},
		{"reopen", url.Values{"state_event": {"reopen"}}},
	}
	for _, st := range steps {
		if st.form != nil {
			srv.JSON(t, "PUT", e.api("/issues/%d", is.IID), srv.RootToken, st.form, 200, nil)
		}
		ev := rcv.wait(t, "/"+d+"-issues", "Issue Hook", func(ev any) bool {
			x, ok := ev.(*gitlab.IssueEvent)
			return ok && x.ObjectAttributes.Action == st.action
		})
		x := ev.(*gitlab.IssueEvent)
		a := x.ObjectAttributes
		if x.ObjectKind != "issue" || a.ID != is.ID || a.IID != is.IID || x.User.Username != "root" ||
			x.Project.PathWithNamespace != e.path || a.Confidential || a.URL != x.Project.WebURL+fmt.Sprintf("/issues/%d", is.IID) {
			t.Errorf("%s: %+v / %+v", st.action, x, a)
		}
		if st.action == "update" && a.Title != "Broken badly" {
			t.Errorf("update: title %q", a.Title)
		}
		if want := map[string]string{"open": "opened", "update": "opened", "close": "closed", "reopen": "reopened"}[st.action]; a.State != want {
			t.Errorf("%s: state %q, want %q", st.action, a.State, want)
		}
	}

	var conf struct{ ID, IID int64 }
	srv.JSON(t, "POST", e.api("/issues"), srv.RootToken, url.Values{"title": {"Secret"}, "confidential": {"true"}}, 201, &conf)
	srv.JSON(t, "POST", e.api("/issues/%d/notes", conf.IID), srv.RootToken, url.Values{"body": {"hush"}}, 201, nil)
	ev := rcv.wait(t, "/"+d+"-conf", "Issue Hook", func(ev any) bool {
		x, ok := ev.(*gitlab.IssueEvent)
		return ok && x.ObjectAttributes.ID == conf.ID
	})
	if x := ev.(*gitlab.IssueEvent); !x.ObjectAttributes.Confidential || x.ObjectAttributes.Action != "open" {
		t.Errorf("confidential issue: %+v", x.ObjectAttributes)
	}
	ev = rcv.wait(t, "/"+d+"-conf", "Note Hook", func(ev any) bool { x, ok := ev.(*gitlab.IssueCommentEvent); return ok && x.Issue.ID == conf.ID })
	if x := ev.(*gitlab.IssueCommentEvent); x.ObjectAttributes.Note != "hush" {
		t.Errorf("note on the confidential issue: %+v", x.ObjectAttributes)
	}
	// The plain hook has its four issue events and nothing of the
	// confidential issue: an event is fanned out to all its hooks in one
	// transaction, and the confidential issue's reached its hook above.
	if n := e.queued(plain); n != len(steps) {
		t.Errorf("the plain issue hook has %d deliveries, want %d", n, len(steps))
	}
}

// testNoteHooks comments on an issue, a merge request, a commit and a
// snippet.
func testNoteHooks(t *testing.T, srv *apptest.Server, rcv *hookReceiver) {
	d := srv.Config.Storage.Driver
	path := "/" + d + "-notes"
	e := newHookEnv(t, srv, rcv, "discussed")
	sha := e.commit("master", "", map[string]string{"README.md": "# readme\n"})
	e.commit("feature", "master", map[string]string{"feature.txt": "feature\n"})
	e.hook(d+"-notes", "note_events")

	var is, mr struct{ ID, IID int64 }
	srv.JSON(t, "POST", e.api("/issues"), srv.RootToken, url.Values{"title": {"Talk"}}, 201, &is)
	srv.JSON(t, "POST", e.api("/merge_requests"), srv.RootToken, url.Values{"title": {"Feature"}, "source_branch": {"feature"}, "target_branch": {"master"}}, 201, &mr)
	var sn struct{ ID int64 }
	srv.JSON(t, "POST", e.api("/snippets"), srv.RootToken, snippetForm("snip", "private"), 201, &sn)

	srv.JSON(t, "POST", e.api("/issues/%d/notes", is.IID), srv.RootToken, url.Values{"body": {"on the issue"}}, 201, nil)
	srv.JSON(t, "POST", e.api("/merge_requests/%d/notes", mr.IID), srv.RootToken, url.Values{"body": {"on the merge request"}}, 201, nil)
	srv.JSON(t, "POST", e.api("/repository/commits/%s/comments", sha), srv.RootToken, url.Values{"note": {"on the commit"}}, 201, nil)
	srv.JSON(t, "POST", e.api("/snippets/%d/notes", sn.ID), srv.RootToken, url.Values{"body": {"on the snippet"}}, 201, nil)

	ev := rcv.wait(t, path, "Note Hook", func(ev any) bool { _, ok := ev.(*gitlab.IssueCommentEvent); return ok })
	if x := ev.(*gitlab.IssueCommentEvent); x.ObjectKind != "note" || x.ObjectAttributes.Note != "on the issue" ||
		x.ObjectAttributes.NoteableType != "Issue" || x.Issue.IID != is.IID || x.User.Username != "root" || x.ProjectID != e.id {
		t.Errorf("issue note: %+v", x)
	}
	ev = rcv.wait(t, path, "Note Hook", func(ev any) bool { _, ok := ev.(*gitlab.MergeCommentEvent); return ok })
	if x := ev.(*gitlab.MergeCommentEvent); x.ObjectAttributes.Note != "on the merge request" ||
		x.MergeRequest.IID != mr.IID || x.MergeRequest.SourceBranch != "feature" || x.Project.PathWithNamespace != e.path {
		t.Errorf("merge request note: %+v", x)
	}
	ev = rcv.wait(t, path, "Note Hook", func(ev any) bool { _, ok := ev.(*gitlab.CommitCommentEvent); return ok })
	if x := ev.(*gitlab.CommitCommentEvent); x.ObjectAttributes.Note != "on the commit" || x.ObjectAttributes.CommitID != sha ||
		x.Commit.ID != sha || x.ObjectAttributes.NoteableType != "Commit" {
		t.Errorf("commit note: %+v", x)
	}
	ev = rcv.wait(t, path, "Note Hook", func(ev any) bool { _, ok := ev.(*gitlab.SnippetCommentEvent); return ok })
	if x := ev.(*gitlab.SnippetCommentEvent); x.ObjectAttributes.Note != "on the snippet" || x.Snippet.ID != sn.ID ||
		x.Snippet.Title != "snip" {
		t.Errorf("snippet note: %+v", x)
	}
}

// testMergeRequestHooks: open, update, close, reopen and merge.
func testMergeRequestHooks(t *testing.T, srv *apptest.Server, rcv *hookReceiver) {
	d := srv.Config.Storage.Driver
	e := newHookEnv(t, srv, rcv, "reviewed")
	e.commit("master", "", map[string]string{"README.md": "# readme\n"})
	head := e.commit("feature", "master", map[string]string{"feature.txt": "feature\n"})
	e.hook(d+"-mr", "merge_requests_events")
	var mr struct{ ID, IID int64 }
	srv.JSON(t, "POST", e.api("/merge_requests"), srv.RootToken, url.Values{"title": {"Feature"}, "source_branch": {"feature"}, "target_branch": {"master"}}, 201, &mr)
	steps := []struct {
		action, state string
		method, path  string
		form          url.Values
	}{
		{"open", "opened", "", "", nil},
		{"update", "opened", "PUT", "", url.Values{"title": {"Feature, renamed"}}},
		{"close", "closed", "PUT", "", url.Values{"state_event": {"close"}}},
		{"reopen", "reopened", "PUT", "", url.Values{"state_event": {"reopen"}}},
		// New commits on the source branch: GitLab's RefreshService update.
		{"update", "reopened", "COMMIT", "", nil},
		{"merge", "merged", "PUT", "/merge", nil},
	}
	for i, st := range steps {
		switch st.method {
		case "":
		case "COMMIT":
			head = e.commit("feature", "", map[string]string{"more.txt": "more\n"})
		default:
			srv.JSON(t, st.method, e.api("/merge_requests/%d%s", mr.IID, st.path), srv.RootToken, st.form, 200, nil)
		}
		ev := rcv.wait(t, "/"+d+"-mr", "Merge Request Hook", func(ev any) bool {
			x, ok := ev.(*gitlab.MergeEvent)
			// The two updates differ by state and last commit.
			return ok && x.ObjectAttributes.Action == st.action && x.ObjectAttributes.State == st.state &&
				(i != 5 || x.ObjectAttributes.LastCommit.ID == head)
		})
		x := ev.(*gitlab.MergeEvent)
		a := x.ObjectAttributes
		if x.ObjectKind != "merge_request" || a.ID != mr.ID || a.IID != mr.IID || a.State != st.state ||
			x.User.Username != "root" || x.Project.PathWithNamespace != e.path || a.SourceBranch != "feature" ||
			a.TargetBranch != "master" || a.LastCommit.ID != head || a.URL != x.Project.WebURL+fmt.Sprintf("/merge_requests/%d", mr.IID) {
			t.Errorf("%s: %+v / %+v", st.action, x, a)
		}
	}
}

// testCIHooks runs a one-job pipeline: the job's running and success and
// the pipeline's statuses reach the hook.
func testCIHooks(t *testing.T, srv *apptest.Server, rcv *hookReceiver) {
	d := srv.Config.Storage.Driver
	e := newHookEnv(t, srv, rcv, "built")
	e.hook(d+"-ci", "pipeline_events", "job_events")
	p := &ciProject{t: t, srv: srv, id: e.id}
	sha := e.commit("master", "", map[string]string{".gitlab-ci.yml": "build:\n  script: make\n"})
	pid := p.pipeline("master", sha)
	r := newTestRunner(t, srv, p.registrationToken())
	r.runJobs(1)
	p.wantStatuses(pid, sha, map[string]string{"build": "success"}, "success")

	for _, status := range []string{"running", "success"} {
		ev := rcv.wait(t, "/"+d+"-ci", "Job Hook", func(ev any) bool { x, ok := ev.(*gitlab.JobEvent); return ok && x.BuildStatus == status })
		x := ev.(*gitlab.JobEvent)
		if x.ObjectKind != "build" || x.BuildName != "build" || x.BuildStage != "test" || x.SHA != sha || x.Ref != "master" ||
			x.ProjectID != e.id || x.Commit.ID != pid || x.Commit.SHA != sha || x.Repository.Name != "built" {
			t.Errorf("job %s: %+v", status, x)
		}
	}
	for _, status := range []string{"pending", "running", "success"} {
		ev := rcv.wait(t, "/"+d+"-ci", "Pipeline Hook", func(ev any) bool {
			x, ok := ev.(*gitlab.PipelineEvent)
			return ok && x.ObjectAttributes.Status == status
		})
		x := ev.(*gitlab.PipelineEvent)
		if x.ObjectKind != "pipeline" || x.ObjectAttributes.ID != pid || x.ObjectAttributes.SHA != sha ||
			x.ObjectAttributes.Ref != "master" || x.Project.PathWithNamespace != e.path || len(x.Builds) != 1 ||
			x.Builds[0].Name != "build" || x.Commit.ID != sha || !slices.Equal(x.ObjectAttributes.Stages, []string{"test"}) {
			t.Errorf("pipeline %s: %+v", status, x)
		}
	}
}

// testHookTestEndpoint: POST .../hooks/:hook_id/test/:trigger sends a
// sample at once and answers with the outcome, as later GitLab does.
func testHookTestEndpoint(t *testing.T, srv *apptest.Server, rcv *hookReceiver) {
	d := srv.Config.Storage.Driver
	e := newHookEnv(t, srv, rcv, "sampled")
	ok := e.hook(d + "-sample")
	c := srv.Client(t)
	base := e.api("/hooks/%d/test/", ok)
	c.ExpectBody(422, `{"message":"Ensure the project has at least one commit."}`, "POST", base+"push_events", srv.RootToken, nil)
	c.ExpectBody(422, `{"message":"Ensure the project has issues."}`, "POST", base+"issues_events", srv.RootToken, nil)
	c.ExpectBody(422, `{"message":"Ensure the wiki is enabled and has pages."}`, "POST", base+"wiki_page_events", srv.RootToken, nil)
	c.ExpectBody(400, `{"error":"trigger does not have a valid value"}`, "POST", base+"build_events", srv.RootToken, nil)
	c.ExpectBody(404, `{"message":"404 Not found"}`, "POST", e.api("/hooks/%d/test/push_events", ok+1000), srv.RootToken, nil)

	sha := e.commit("master", "", map[string]string{"README.md": "# readme\n"})
	c.ExpectBody(201, `{"message":"201 Created"}`, "POST", base+"push_events", srv.RootToken, nil)
	ev := rcv.wait(t, "/"+d+"-sample", "Push Hook", func(ev any) bool { _, ok := ev.(*gitlab.PushEvent); return ok })
	if x := ev.(*gitlab.PushEvent); x.After != sha || x.Ref != "refs/heads/master" || len(x.Commits) != 1 || x.UserUsername != "root" {
		t.Errorf("sample push: %+v", x)
	}
	c.ExpectBody(201, `{"message":"201 Created"}`, "POST", base+"tag_push_events", srv.RootToken, nil)
	rcv.wait(t, "/"+d+"-sample", "Tag Push Hook", func(ev any) bool { _, ok := ev.(*gitlab.TagEvent); return ok })

	var is struct{ IID int64 }
	srv.JSON(t, "POST", e.api("/issues"), srv.RootToken, url.Values{"title": {"Sample me"}}, 201, &is)
	c.ExpectBody(201, `{"message":"201 Created"}`, "POST", base+"issues_events", srv.RootToken, nil)
	rcv.wait(t, "/"+d+"-sample", "Issue Hook", func(ev any) bool {
		x, ok := ev.(*gitlab.IssueEvent)
		return ok && x.ObjectAttributes.IID == is.IID
	})

	// A hook answering 500: 422 with its answer.
	failing := e.hook("fail-" + d)
	c.ExpectBody(422, `{"message":"boom\n"}`, "POST", e.api("/hooks/%d/test/push_events", failing), srv.RootToken, nil)
}
