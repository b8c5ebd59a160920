package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/adapters/storage/postgres/pgtest/migrated"
	"github.com/hearth-forge/hearth/app"
	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/modules/backup"
)

// Acceptance tests of `hearth backup`: a server filled on SQLite is backed
// up while a writer keeps committing, restored on Postgres and started;
// every recorded API read answers as it did before, tokens and passwords
// still sign in, clones give the same refs. Then the Postgres server is
// backed up and restored on SQLite, and the same reads answer the same.

// backupFixture is what the recorded reads cover.
type backupFixture struct {
	srv       *apptest.Server
	busy      int64            // the project the writer commits to, left out of the reads
	writerTok string           // the writer's token (its own user: its events are its own)
	projects  map[int64]string // id -> path_with_namespace, busy included
	reads     []backupRead     // path and token of each recorded read
	aliceTok  string
	answers   map[string]string // "token path" -> normalised status and body
	refs      map[int64]string  // ls-remote output per project (busy aside)
	tokenUser map[string]string // token -> whose
}

type backupRead struct{ path, token string }

func TestBackupRoundTrip(t *testing.T) {
	t.Parallel()
	start := time.Now()
	lap := func(what string) { t.Logf("%s: %v", what, time.Since(start).Round(time.Millisecond)) }
	src := apptest.New(t, ciServerConfig(nil))
	f := fillForBackup(t, src)
	lap("filled")

	f.record(t)
	lap("recorded")

	// The writer commits to its own project until the backup is written.
	// The backup waits for one of its commits twice: while the tables are
	// read (after the snapshot began) and between the snapshot and the
	// bundles, the two moments a commit could break consistency.
	stop := make(chan struct{})
	committed := make(chan struct{})
	var wg sync.WaitGroup
	var commits atomic.Int64
	var writerErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			body := map[string]any{"branch": "master", "commit_message": fmt.Sprintf("busy %d", i),
				"actions": []map[string]string{{"action": "create", "file_path": fmt.Sprintf("busy/%d.txt", i), "content": "x"}}}
			resp, raw := src.Do(t, "POST", fmt.Sprintf("/projects/%d/repository/commits", f.busy), f.writerTok, body)
			if resp.StatusCode != 201 {
				writerErr = fmt.Errorf("writer commit %d: %d %s", i, resp.StatusCode, raw)
				close(committed)
				return
			}
			commits.Add(1)
			select {
			case committed <- struct{}{}:
			default:
			}
		}
	}()
	waits := 0
	awaitCommit := func(step string, _, _ int) {
		if step != "database: projects" && step != "repositories: projects/1.git" {
			return
		}
		waits++
		for range 2 { // the second began after this step did
			select {
			case <-committed:
			case <-time.After(10 * time.Second):
				t.Errorf("the writer made no commit during %s", step)
				return
			}
		}
	}
	archive := filepath.Join(t.TempDir(), "sqlite.tar")
	m := createBackup(t, src.Config, archive, awaitCommit)
	close(stop)
	wg.Wait()
	if writerErr != nil {
		t.Fatal(writerErr)
	}
	if waits != 2 {
		t.Errorf("the backup waited for the writer %d times, want 2", waits)
	}
	t.Logf("writer committed %d times during the run; archive has %d parts, %d tables", commits.Load(), len(m.Parts), len(m.Tables))
	if len(m.Blobs) == 0 {
		t.Errorf("no blob in the backup (the job's artifact and trace)")
	}

	// SQLite -> Postgres.
	lap("backed up")
	pgCfg := restoreTarget(t, src.Config, "postgres")
	restoreBackup(t, pgCfg, archive, false)
	lap("restored on postgres")
	pg := startRestored(t, pgCfg)
	f.compareReads(t, pg)
	lap("compared")

	// Postgres -> SQLite, from the restored server, backed up before the
	// sign-ins below change it.
	archive2 := filepath.Join(t.TempDir(), "postgres.tar")
	createBackup(t, pg.Config, archive2, nil)
	f.compareAccess(t, pg)
	lap("backed up postgres")
	liteCfg := restoreTarget(t, src.Config, "sqlite")
	restoreBackup(t, liteCfg, archive2, false)
	lite := startRestored(t, liteCfg)
	f.compareReads(t, lite)
	f.compareAccess(t, lite)
	lap("restored and compared on sqlite")
}

// TestBackupRefusals: a flipped byte is refused by verify and restore
// naming the part; a restore into a non-empty target is refused without
// force and done with it.
func TestBackupRefusals(t *testing.T) {
	t.Parallel()
	src := apptest.New(t)
	c := src.Client(t)
	_, alice := c.User("alice")
	p := c.Project(alice, "name", "tiny")
	c.Expect(201, "POST", fmt.Sprintf("/projects/%d/repository/commits", apptest.ID(p)), alice, map[string]any{
		"branch": "master", "commit_message": "one",
		"actions": []map[string]string{{"action": "create", "file_path": "a.txt", "content": strings.Repeat("hello\n", 2000)}}})
	archive := filepath.Join(t.TempDir(), "b.tar")
	m := createBackup(t, src.Config, archive, nil)

	raw, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	mid := int64(len(raw) / 2)
	raw[mid] ^= 0x20
	bad := filepath.Join(t.TempDir(), "bad.tar")
	if err := os.WriteFile(bad, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	// The part whose span holds the flipped byte must be named.
	want := ""
	for _, p := range m.Parts {
		if p.Offset <= mid && mid < p.End {
			want = p.Name
		}
	}
	if want == "" {
		t.Fatalf("byte %d is in no part of %v", mid, m.Parts)
	}
	vf, _ := os.Open(bad)
	defer vf.Close()
	_, err = backup.Verify(context.Background(), vf, int64(len(raw)), nil)
	if !errors.Is(err, core.ErrInvalid) || !strings.Contains(err.Error(), "part "+want+":") {
		t.Errorf("verify of a damaged archive: %v, want the part %s named", err, want)
	}
	target := restoreTarget(t, src.Config, "sqlite")
	err = restoreErr(t, target, bad, false)
	if !errors.Is(err, core.ErrInvalid) || !strings.Contains(err.Error(), "part "+want+":") {
		t.Errorf("restore of a damaged archive: %v, want the part %s named", err, want)
	}

	// Nothing was written: the intact archive restores into the same
	// target, then a second restore is refused, and forced works.
	restoreBackup(t, target, archive, false)
	err = restoreErr(t, target, archive, false)
	if !errors.Is(err, core.ErrConflict) || !strings.Contains(err.Error(), "not empty") || !strings.Contains(err.Error(), "--force") {
		t.Errorf("restore into a non-empty target: %v", err)
	}
	restoreBackup(t, target, archive, true)
	restored := startRestored(t, target)
	if r := restored.Client(t).Send("GET", fmt.Sprintf("/projects/%d/repository/files/a.txt?ref=master", apptest.ID(p)), alice, nil); r.Status != 200 {
		t.Errorf("file after a forced restore: %d %s", r.Status, r.Body)
	}
}

// fillForBackup creates users, a group, projects with repositories, a
// fork, issues, merge requests (merged and open), notes, labels, a
// milestone, snippets, tokens, SSH keys, a broadcast message and a
// pipeline whose job left an artifact and an archived trace.
func fillForBackup(t *testing.T, srv *apptest.Server) *backupFixture {
	c := srv.Client(t)
	f := &backupFixture{srv: srv, projects: map[int64]string{}, tokenUser: map[string]string{srv.RootToken: "root"}}
	aliceID, alice := c.User("alice")
	bobID, bob := c.User("bob")
	f.aliceTok = alice
	f.tokenUser[alice], f.tokenUser[bob] = "alice", "bob"
	c.Expect(201, "POST", "/user/keys", alice, apptest.Form("title", "laptop", "key", newAuthorizedKey(t)))
	c.Expect(201, "POST", fmt.Sprintf("/users/%d/keys", bobID), srv.RootToken, apptest.Form("title", "desk", "key", newAuthorizedKey(t)))
	c.Expect(201, "POST", "/broadcast_messages", srv.RootToken, apptest.Form("message", "Upgrade <soon>",
		"starts_at", "2030-01-01T10:00:00.123Z", "ends_at", "2030-01-02T00:00:00Z", "font", "#000"))
	group := c.Group(srv.RootToken, "name", "Team", "path", "team", "visibility", "internal")
	c.AddMember("groups", apptest.ID(group), bobID, 30)

	// A CI project of root's: a pipeline with an artifact.
	ci := newCIProject(t, srv, "app")
	f.projects[ci.id] = "root/app"
	sha := ci.commit("master", "", "ci", map[string]string{".gitlab-ci.yml": "build:\n  script: [make]\n  artifacts:\n    paths: [out/]\n", "README.md": "# app\n"})
	ci.pipeline("master", sha)
	newTestRunner(t, srv, ci.registrationToken()).runJobs(1)
	c.AddMember("projects", ci.id, aliceID, 30)

	// Branches, merge requests (one merged), issues, notes, labels, a
	// milestone, a tag, a snippet.
	ci.commit("feature", "master", "feature work", map[string]string{"feature.txt": "f\n"})
	ci.commit("done", "master", "done work", map[string]string{"done.txt": "d\n"})
	path := func(format string, a ...any) string {
		return fmt.Sprintf("/projects/%d", ci.id) + fmt.Sprintf(format, a...)
	}
	c.Expect(201, "POST", path("/labels"), srv.RootToken, apptest.Form("name", "bug", "color", "#ff0000"))
	ms := c.Expect(201, "POST", path("/milestones"), srv.RootToken, apptest.Form("title", "v1")).Object(t)
	open := c.Expect(201, "POST", path("/merge_requests"), alice, apptest.Form("source_branch", "feature", "target_branch", "master", "title", "Open one", "labels", "bug")).Object(t)
	merged := c.Expect(201, "POST", path("/merge_requests"), srv.RootToken, apptest.Form("source_branch", "done", "target_branch", "master", "title", "Merged one", "milestone_id", fmt.Sprint(apptest.ID(ms)))).Object(t)
	c.Expect(200, "PUT", path("/merge_requests/%v/merge", merged["iid"]), srv.RootToken, nil)
	c.Expect(201, "POST", path("/merge_requests/%v/notes", open["iid"]), alice, apptest.Form("body", "looks fine"))
	c.Expect(201, "POST", path("/repository/tags"), srv.RootToken, apptest.Form("tag_name", "v1.0", "ref", "master", "message", "first"))
	var issues []map[string]any
	for i, title := range []string{"Crash on start", "Typo", "Secret"} {
		form := apptest.Form("title", title, "description", "details "+fmt.Sprint(i), "labels", "bug")
		if title == "Secret" {
			form.Set("confidential", "true")
		}
		issues = append(issues, c.Expect(201, "POST", path("/issues"), alice, form).Object(t))
	}
	c.Expect(200, "PUT", path("/issues/%v", issues[1]["iid"]), srv.RootToken, apptest.Form("state_event", "close"))
	c.Expect(201, "POST", path("/issues/%v/notes", issues[0]["iid"]), srv.RootToken, apptest.Form("body", "me too"))
	c.Expect(201, "POST", path("/issues/%v/notes", issues[0]["iid"]), alice, apptest.Form("body", "fixed?"))
	c.Expect(201, "POST", path("/snippets"), alice, apptest.Form("title", "snip", "file_name", "s.sh", "code", "echo hi", "visibility", "internal"))
	c.Expect(201, "POST", "/snippets", alice, apptest.Form("title", "mine", "file_name", "m.txt", "content", "personal", "visibility", "public"))

	// A fork of it by alice, a group project, an empty project.
	fork := c.Expect(201, "POST", path("/fork"), alice, nil).Object(t)
	f.projects[apptest.ID(fork)] = fork["path_with_namespace"].(string)
	gp := c.Project(srv.RootToken, "name", "lib", "namespace_id", fmt.Sprint(apptest.ID(group)), "visibility", "internal")
	f.projects[apptest.ID(gp)] = gp["path_with_namespace"].(string)
	c.Expect(201, "POST", fmt.Sprintf("/projects/%d/repository/commits", apptest.ID(gp)), bob, map[string]any{
		"branch": "master", "commit_message": "lib", "actions": []map[string]string{{"action": "create", "file_path": "lib.go", "content": "package lib\n"}}})
	empty := c.Project(alice, "name", "empty")
	f.projects[apptest.ID(empty)] = empty["path_with_namespace"].(string)

	busy := newCIProject(t, srv, "busy")
	busy.commit("master", "", "start", map[string]string{"busy.txt": "0\n"})
	f.busy = busy.id
	writerID, writerTok := c.User("writer")
	c.AddMember("projects", busy.id, writerID, 30)
	f.writerTok = writerTok
	f.projects[busy.id] = "root/busy"

	// The reads: lists and single resources as three callers.
	add := func(token string, paths ...string) {
		for _, p := range paths {
			f.reads = append(f.reads, backupRead{path: p, token: token})
		}
	}
	for _, tok := range []string{srv.RootToken, alice, bob} {
		add(tok, "/user", "/user/keys", "/projects?per_page=100", "/projects?owned=true", "/groups", "/issues?scope=all&state=all",
			"/merge_requests?scope=all&state=all", "/todos", "/events", "/namespaces", "/snippets", "/snippets/public", "/users?per_page=100",
			fmt.Sprintf("/groups/%d", apptest.ID(group)), fmt.Sprintf("/groups/%d/projects", apptest.ID(group)),
			fmt.Sprintf("/groups/%d/members", apptest.ID(group)))
		for _, uid := range []int64{1, aliceID, bobID} {
			add(tok, fmt.Sprintf("/users/%d", uid), fmt.Sprintf("/users/%d/keys", uid), fmt.Sprintf("/users/%d/events", uid))
		}
	}
	for id := range f.projects {
		if id == f.busy {
			continue
		}
		p := func(s string) string { return fmt.Sprintf("/projects/%d%s", id, s) }
		for _, tok := range []string{srv.RootToken, alice} {
			add(tok, p(""), p("/members"), p("/repository/branches"), p("/repository/tags"), p("/repository/commits"),
				p("/repository/tree"), p("/issues?state=all"), p("/merge_requests?state=all"), p("/labels"), p("/milestones"),
				p("/snippets"), p("/events"), p("/pipelines"), p("/jobs"), p("/repository/branches/master"),
				p("/statistics"), p("/forks"), p("/protected_branches"), p("/hooks"), p("/releases"))
		}
	}
	for _, is := range issues {
		add(srv.RootToken, path("/issues/%v", is["iid"]), path("/issues/%v/notes", is["iid"]), path("/issues/%v/award_emoji", is["iid"]))
		add(alice, path("/issues/%v", is["iid"]))
	}
	for _, mr := range []map[string]any{open, merged} {
		add(srv.RootToken, path("/merge_requests/%v", mr["iid"]), path("/merge_requests/%v/notes", mr["iid"]),
			path("/merge_requests/%v/commits", mr["iid"]), path("/merge_requests/%v/changes", mr["iid"]))
	}
	add(srv.RootToken, path("/milestones/%d", apptest.ID(ms)), path("/pipelines/1"), path("/jobs/1"), path("/jobs/1/artifacts"),
		path("/jobs/1/trace"), "/runners/all", "/hooks", "/deploy_keys", "/broadcast_messages", fmt.Sprintf("/projects/%d/snippets/1", ci.id))
	return f
}

// record reads the refs of every project but the busy one (git's sign-ins
// change users' sign-in times: first), then every recorded path.
func (f *backupFixture) record(t *testing.T) {
	f.refs = map[int64]string{}
	for id, p := range f.projects {
		if id != f.busy {
			f.refs[id] = lsRemote(t, f.srv, p)
		}
	}
	f.answers = map[string]string{}
	for _, r := range f.reads {
		f.answers[r.token+" "+r.path] = f.read(t, f.srv, r)
	}
	t.Logf("recorded %d reads and the refs of %d projects", len(f.reads), len(f.refs))
}

// compareReads replays the reads on a restored server, with the tokens
// made on the source.
func (f *backupFixture) compareReads(t *testing.T, srv *apptest.Server) {
	t.Helper()
	differ := 0
	for _, r := range f.reads {
		got := f.read(t, srv, r)
		if want := f.answers[r.token+" "+r.path]; got != want {
			if differ++; differ <= 5 {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				from := max(0, i-200)
				t.Errorf("GET %s as %s differs after restore on %s at byte %d:\n got  ...%.400s\n want ...%.400s", r.path, f.tokenUser[r.token], srv.Config.Storage.Driver, i, got[from:], want[from:])
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d reads differ on %s", differ, len(f.reads), srv.Config.Storage.Driver)
	}
}

// compareAccess signs in with passwords and compares the refs of every
// project over git; the busy project's repository must clone (every ref
// resolves).
func (f *backupFixture) compareAccess(t *testing.T, srv *apptest.Server) {
	t.Helper()
	for _, u := range []string{"alice", "bob"} {
		if resp, body := srv.Do(t, "POST", "/session", "", url.Values{"login": {u}, "password": {"secret-" + u}}); resp.StatusCode != 201 {
			t.Errorf("%s's password after restore: %d %s", u, resp.StatusCode, body)
		}
	}
	if resp, body := srv.Do(t, "POST", "/session", "", url.Values{"login": {"root"}, "password": {apptest.RootPassword}}); resp.StatusCode != 201 {
		t.Errorf("root's password after restore: %d %s", resp.StatusCode, body)
	}
	for id, want := range f.refs {
		if got := lsRemote(t, srv, f.projects[id]); got != want {
			t.Errorf("refs of %s after restore on %s:\n%s\nwant\n%s", f.projects[id], srv.Config.Storage.Driver, got, want)
		}
	}
	u, _ := url.Parse(srv.URL + "/root/busy.git")
	u.User = url.UserPassword("root", f.srv.RootToken)
	apptest.Git(t, t.TempDir(), "clone", "--quiet", "--mirror", u.String(), "busy.git")
}

// read is one GET's status and body, with the server's own URL and the
// busy project's entries taken out (the writer changes them). The
// source's URL is replaced too: push events store it in their payload.
func (f *backupFixture) read(t *testing.T, srv *apptest.Server, r backupRead) string {
	resp, body := srv.Do(t, "GET", r.path, r.token, nil)
	text := strings.ReplaceAll(strings.ReplaceAll(string(body), srv.URL, "BASE"), f.srv.URL, "BASE")
	var v any
	if json.Unmarshal([]byte(text), &v) == nil {
		if list, ok := v.([]any); ok {
			kept := list[:0]
			for _, e := range list {
				if o, ok := e.(map[string]any); ok && (o["project_id"] == float64(f.busy) || strings.HasPrefix(r.path, "/projects?") && o["id"] == float64(f.busy)) {
					continue
				}
				kept = append(kept, e)
			}
			v = kept
		}
		b, _ := json.Marshal(v)
		text = string(b)
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, text)
}

func lsRemote(t *testing.T, srv *apptest.Server, path string) string {
	u, _ := url.Parse(srv.URL + "/" + path + ".git")
	u.User = url.UserPassword("root", apptest.RootPassword)
	out := apptest.Git(t, t.TempDir(), "ls-remote", u.String())
	lines := strings.Split(out, "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func quietBackup() fx.Option { return fx.Decorate(func() *zap.Logger { return zap.NewNop() }) }

// createBackup backs up the server cfg names as `hearth backup create`
// does: from another process's view, beside the running server.
func createBackup(t *testing.T, cfg config.Config, path string, progress backup.Progress) backup.Manifest {
	t.Helper()
	svc, closeFn, err := app.OpenBackup(cfg, quietBackup())
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	m, err := svc.Create(context.Background(), out, t.TempDir(), progress)
	if err != nil {
		t.Fatalf("backup create: %v", err)
	}
	return m
}

// restoreTarget is an empty data directory and database for driver.
func restoreTarget(t *testing.T, base config.Config, driver string) config.Config {
	cfg := base
	cfg.DataDir = t.TempDir()
	cfg.Git.Root, cfg.Blob.URL = "", ""
	cfg.Storage.Driver = driver
	if driver == "postgres" {
		// A database `hearth migrate` made: migrated, without rows.
		cfg.Storage.DSN = migrated.DSN(t)
	} else {
		cfg.Storage.DSN = filepath.Join(cfg.DataDir, "hearth.db")
	}
	return cfg
}

func restoreErr(t *testing.T, cfg config.Config, path string, force bool) error {
	t.Helper()
	svc, closeFn, err := app.OpenBackup(cfg, quietBackup())
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, _ := f.Stat()
	_, err = svc.Restore(context.Background(), f, info.Size(), force, nil)
	return err
}

func restoreBackup(t *testing.T, cfg config.Config, path string, force bool) {
	t.Helper()
	if err := restoreErr(t, cfg, path, force); err != nil {
		t.Fatalf("backup restore on %s: %v", cfg.Storage.Driver, err)
	}
}

// startRestored starts a server on a restored database and data directory.
func startRestored(t *testing.T, cfg config.Config) *apptest.Server {
	return apptest.New(t, apptest.Driver(cfg.Storage.Driver), apptest.At(cfg.DataDir, cfg.Storage.DSN), ciServerConfig(nil))
}
