package hooks_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
)

// A public documentation address (TEST-NET-3): the guard lets it through
// without a DNS lookup.
const hookURL = "http://203.0.113.7/hook"

type env struct {
	*apptest.Client
	srv *apptest.Server
}

func (e env) person(name string) (int64, string) { return e.User(name) }

func (e env) project(name, visibility string) int64 {
	e.T.Helper()
	return apptest.ID(e.Project(e.srv.RootToken, "name", name, "visibility", visibility))
}

func eachDriver(t *testing.T, fn func(t *testing.T, e env), opts ...apptest.Option) {
	for _, driver := range []string{"sqlite", "postgres"} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			srv := apptest.New(t, append([]apptest.Option{apptest.Driver(driver)}, opts...)...)
			fn(t, env{Client: srv.Client(t), srv: srv})
		})
	}
}

// withoutTime drops created_at after checking it is a GitLab timestamp.
func withoutTime(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	s, _ := m["created_at"].(string)
	if _, err := time.Parse("2006-01-02T15:04:05.000Z", s); err != nil {
		t.Fatalf("created_at %q: %v", s, err)
	}
	delete(m, "created_at")
	return m
}

func wantHook(t *testing.T, got map[string]any, want string) {
	t.Helper()
	var w map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(w, withoutTime(t, got)); diff != "" {
		t.Fatalf("hook (-want +got):\n%s", diff)
	}
}

func TestHooksAPI(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, e env) {
		pid := e.project("hooked", "public")
		masterID, master := e.person("master")
		devID, dev := e.person("dev")
		e.AddMember("projects", pid, masterID, int(domain.Master))
		e.AddMember("projects", pid, devID, int(domain.Developer))
		base := fmt.Sprintf("/projects/%d/hooks", pid)

		e.ExpectBody(400, `{"error":"url is missing"}`, "POST", base, master, nil)
		e.ExpectBody(400, `{"error":"url is missing, push_events is invalid"}`, "POST", base, master, apptest.Form("push_events", "maybe"))
		created := e.Expect(201, "POST", base, master, apptest.Form("url", hookURL, "token", "s3cr3t", "issues_events", "true", "job_events", "1"))
		body := string(created.Body)
		if strings.Contains(body, "s3cr3t") || strings.Contains(body, "token") {
			t.Fatalf("the token is shown: %s", body)
		}
		h := created.Object(t)
		id := apptest.ID(h)
		wantHook(t, h, fmt.Sprintf(`{"id":%d,"url":%q,"project_id":%d,"push_events":true,"issues_events":true,
			"confidential_issues_events":false,"merge_requests_events":false,"tag_push_events":false,"note_events":false,
			"job_events":true,"pipeline_events":false,"wiki_page_events":false,"repository_update_events":false,
			"enable_ssl_verification":true,"alert_status":"executable","disabled_until":null}`, id, hookURL, pid))
		// The token is kept, as given, to be sent as X-Gitlab-Token.
		if stored, err := e.srv.Store.Hooks().Get(t.Context(), pid, id); err != nil || stored.Token != "s3cr3t" {
			t.Fatalf("stored hook %+v, %v", stored, err)
		}

		// JSON bodies and every flag.
		second := e.Expect(201, "POST", base, master, map[string]any{"url": "https://203.0.113.8/x", "push_events": false,
			"tag_push_events": true, "merge_requests_events": true, "note_events": true, "pipeline_events": true,
			"wiki_page_events": true, "confidential_issues_events": true, "enable_ssl_verification": false}).Object(t)
		id2 := apptest.ID(second)
		wantHook(t, second, fmt.Sprintf(`{"id":%d,"url":"https://203.0.113.8/x","project_id":%d,"push_events":false,"issues_events":false,
			"confidential_issues_events":true,"merge_requests_events":true,"tag_push_events":true,"note_events":true,
			"job_events":false,"pipeline_events":true,"wiki_page_events":true,"repository_update_events":false,
			"enable_ssl_verification":false,"alert_status":"executable","disabled_until":null}`, id2, pid))

		l := e.Expect(200, "GET", base+"?per_page=1", master, nil)
		if got := l.List(t); len(got) != 1 || apptest.ID(got[0]) != id || l.Header.Get("X-Total") != "2" {
			t.Fatalf("list page 1: %v, X-Total %q", got, l.Header.Get("X-Total"))
		}
		e.ExpectBody(400, `{"error":"per_page is invalid"}`, "GET", base+"?per_page=x", master, nil)

		got := e.Expect(200, "GET", fmt.Sprintf("%s/%d", base, id), master, nil).Object(t)
		if apptest.ID(got) != id || got["url"] != hookURL {
			t.Fatalf("get %v", got)
		}
		e.ExpectBody(404, `{"message":"404 Not found"}`, "GET", fmt.Sprintf("%s/%d", base, id2+100), master, nil)
		e.ExpectBody(400, `{"error":"hook_id is invalid"}`, "GET", base+"/abc", master, nil)
		other := e.project("other", "public")
		e.ExpectBody(404, `{"message":"404 Not found"}`, "GET", fmt.Sprintf("/projects/%d/hooks/%d", other, id), e.srv.RootToken, nil)

		// PUT changes what it is given; 9.x requires url there too.
		e.ExpectBody(400, `{"error":"url is missing"}`, "PUT", fmt.Sprintf("%s/%d", base, id), master, apptest.Form("note_events", "true"))
		upd := e.Expect(200, "PUT", fmt.Sprintf("%s/%d", base, id), master, apptest.Form("url", "http://203.0.113.9/new", "note_events", "true", "push_events", "false")).Object(t)
		if upd["url"] != "http://203.0.113.9/new" || upd["note_events"] != true || upd["push_events"] != false || upd["issues_events"] != true || upd["job_events"] != true {
			t.Fatalf("update %v", upd)
		}
		if stored, _ := e.srv.Store.Hooks().Get(t.Context(), pid, id); stored.Token != "s3cr3t" {
			t.Fatalf("an update without token changed it to %q", stored.Token)
		}
		e.Expect(200, "PUT", fmt.Sprintf("%s/%d", base, id), master, apptest.Form("url", hookURL, "token", ""))
		if stored, _ := e.srv.Store.Hooks().Get(t.Context(), pid, id); stored.Token != "" {
			t.Fatalf("token %q, want cleared", stored.Token)
		}
		e.ExpectBody(404, `{"message":"404 Not found"}`, "PUT", fmt.Sprintf("%s/%d", base, id2+100), master, apptest.Form("url", hookURL))

		e.Expect(403, "DELETE", fmt.Sprintf("%s/%d", base, id), dev, nil)
		e.Expect(204, "DELETE", fmt.Sprintf("%s/%d", base, id), master, nil)
		e.ExpectBody(404, `{"message":"404 Not found"}`, "DELETE", fmt.Sprintf("%s/%d", base, id), master, nil)
		if l := e.Expect(200, "GET", base, master, nil).List(t); len(l) != 1 || apptest.ID(l[0]) != id2 {
			t.Fatalf("after delete %v", l)
		}
	})
}

// TestHookURLGuard: URLs the guard refuses are GitLab's 422 "Invalid url
// given" on create and update, and nothing is saved.
func TestHookURLGuard(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, e env) {
		pid := e.project("guarded", "private")
		base := fmt.Sprintf("/projects/%d/hooks", pid)
		root := e.srv.RootToken
		for _, u := range []string{"http://127.0.0.1:8080/hook", "http://10.0.0.5/", "http://[::1]/", "http://169.254.169.254/latest",
			"ftp://203.0.113.7/", "not a url", "", "http://0.0.0.0/", "http://[::ffff:127.0.0.1]/"} {
			e.ExpectBody(422, `{"message":"Invalid url given"}`, "POST", base, root, apptest.Form("url", u))
		}
		if l := e.Expect(200, "GET", base, root, nil).List(t); len(l) != 0 {
			t.Fatalf("refused hooks were saved: %v", l)
		}
		id := apptest.ID(e.Expect(201, "POST", base, root, apptest.Form("url", hookURL)).Object(t))
		e.ExpectBody(422, `{"message":"Invalid url given"}`, "PUT", fmt.Sprintf("%s/%d", base, id), root, apptest.Form("url", "http://192.168.1.1/"))
		if got := e.Expect(200, "GET", fmt.Sprintf("%s/%d", base, id), root, nil).Object(t); got["url"] != hookURL {
			t.Fatalf("a refused update saved %v", got["url"])
		}
	})
}

// TestHookLocalRequestsAllowed: webhooks.allow_local_requests lets hooks
// name local addresses; malformed URLs stay refused.
func TestHookLocalRequestsAllowed(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, e env) {
		pid := e.project("local", "private")
		base := fmt.Sprintf("/projects/%d/hooks", pid)
		root := e.srv.RootToken
		for _, u := range []string{"http://127.0.0.1:8080/hook", "http://10.0.0.5/", "https://[::1]/x"} {
			if got := e.Expect(201, "POST", base, root, apptest.Form("url", u)).Object(t); got["url"] != u {
				t.Fatalf("url %v, want %s", got["url"], u)
			}
		}
		e.ExpectBody(422, `{"message":"Invalid url given"}`, "POST", base, root, apptest.Form("url", "gopher://127.0.0.1/"))
	}, apptest.Configure(func(c *config.Config) { c.Webhooks.AllowLocalRequests = true }))
}

// TestHookAlertStatus: a hook that failures disabled says so until the
// time passes, and editing it enables it again at once.
func TestHookAlertStatus(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, e env) {
		pid := e.project("alerting", "private")
		root := e.srv.RootToken
		one := fmt.Sprintf("/projects/%d/hooks/", pid)
		id := apptest.ID(e.Expect(201, "POST", one[:len(one)-1], root, apptest.Form("url", hookURL)).Object(t))
		one += fmt.Sprint(id)
		disable := func() time.Time {
			until := time.Now().UTC().Add(time.Hour).Truncate(time.Millisecond)
			if _, err := e.srv.Store.Hooks().Update(t.Context(), pid, id, func(h *domain.ProjectHook) error {
				h.FailureCount, h.DisabledUntil = 6, &until
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			return until
		}
		until := disable()
		got := e.Expect(200, "GET", one, root, nil).Object(t)
		if got["alert_status"] != "temporarily_disabled" || got["disabled_until"] != until.Format("2006-01-02T15:04:05.000Z") {
			t.Fatalf("disabled hook shows %v until %v", got["alert_status"], got["disabled_until"])
		}
		e.srv.Advance(2 * time.Hour)
		if got := e.Expect(200, "GET", one, root, nil).Object(t); got["alert_status"] != "executable" || got["disabled_until"] != nil {
			t.Fatalf("after the time passed: %v until %v", got["alert_status"], got["disabled_until"])
		}
		disable()
		e.srv.Advance(-2 * time.Hour)
		if got := e.Expect(200, "PUT", one, root, apptest.Form("url", hookURL)).Object(t); got["alert_status"] != "executable" {
			t.Fatalf("edited hook: %v", got["alert_status"])
		}
		if h, err := e.srv.Store.Hooks().Get(t.Context(), pid, id); err != nil || h.FailureCount != 0 || h.DisabledUntil != nil {
			t.Fatalf("edited hook's failure record: %+v, %v", h, err)
		}
	})
}
