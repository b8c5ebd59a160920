package app_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
)

// hookRoutes are the project hooks rows: masters and owners manage a
// project's hooks (GitLab's authorize_admin_project), developers get 403,
// who cannot see the project 404, anonymous callers 401 first. The
// recent deliveries routes follow the same rules.
func hookRoutes() map[string]routeCase {
	const api = "/api/v4/projects/{id}"
	const p = "/projects/{project}"
	// The table's hooks subscribe to nothing: the cells make hundreds of
	// them on one project, and each would get every later push.
	form := func(n int) any { return vals("url", fmt.Sprintf("%s/hook/%d", hookSink(), n), "push_events", "false") }
	// fresh makes a hook as root for the cell and names it.
	fresh := func(tr *tracker) string {
		return fmt.Sprintf("%s/hooks/%d", p, tr.fresh("hooks", vals("url", hookSink()+"/fixture", "push_events", "false"), "id"))
	}
	// delivered makes a hook with one delivery for the cell and names
	// both. The hook is disabled for a day, so the delivery stays as it
	// was queued while the cell reads it.
	delivered := func(tr *tracker) (hook string, delivery int64) {
		w := tr.w
		id := tr.fresh("hooks", vals("url", hookSink()+"/fixture", "push_events", "false"), "id")
		off := time.Now().Add(24 * time.Hour)
		if _, err := w.srv.Store.Hooks().Update(context.Background(), tr.f.projectID, id, func(h *domain.ProjectHook) error {
			h.DisabledUntil = &off
			return nil
		}); err != nil {
			w.t.Fatalf("disable hook %d: %v", id, err)
		}
		d := domain.HookDelivery{HookID: id, Event: domain.HookEventPush, Payload: `{"object_kind":"push"}`, MaxAttempts: 1}
		if err := w.srv.Store.HookDeliveries().Enqueue(context.Background(), &d); err != nil {
			w.t.Fatalf("queue delivery: %v", err)
		}
		return fmt.Sprintf("%s/hooks/%d", p, id), d.ID
	}
	return map[string]routeCase{
		"GET " + api + "/hooks": {rule: masterLevel, req: get(p + "/hooks")},
		"POST " + api + "/hooks": {rule: masterLevel, req: prepared("POST", func(tr *tracker, _ actor) (string, any) {
			return p + "/hooks", form(tr.next())
		})},
		"GET " + api + "/hooks/{hook_id}": {rule: masterLevel, req: prepared("GET", func(tr *tracker, _ actor) (string, any) {
			return fresh(tr), nil
		})},
		"PUT " + api + "/hooks/{hook_id}": {rule: masterLevel, kept: true, req: prepared("PUT", func(tr *tracker, _ actor) (string, any) {
			return fresh(tr), form(tr.next())
		})},
		"DELETE " + api + "/hooks/{hook_id}": {rule: masterLevel, kept: true, req: prepared("DELETE", func(tr *tracker, _ actor) (string, any) {
			return fresh(tr), nil
		})},
		"GET " + api + "/hooks/{hook_id}/events": {rule: masterLevel, req: prepared("GET", func(tr *tracker, _ actor) (string, any) {
			hook, _ := delivered(tr)
			return hook + "/events", nil
		})},
		"POST " + api + "/hooks/{hook_id}/events/{hook_log_id}/resend": {rule: masterLevel, kept: true, req: prepared("POST", func(tr *tracker, _ actor) (string, any) {
			hook, id := delivered(tr)
			return fmt.Sprintf("%s/events/%d/resend", hook, id), nil
		})},
		// A hook on a loopback receiver (the table's servers allow local
		// requests) tested with the tracker's issues: allowed cells get 201.
		"POST " + api + "/hooks/{hook_id}/test/{trigger}": {rule: masterLevel, req: prepared("POST", func(tr *tracker, _ actor) (string, any) {
			return fmt.Sprintf("%s/hooks/%d/test/issues_events", p, tr.fresh("hooks", vals("url", hookSink()+"/test"), "id")), nil
		})},
	}
}

// hookSink is a loopback receiver that accepts every delivery at once:
// the table's hooks point there, so that nothing leaves the machine and no
// cell waits on a timeout. It lives as long as the test process.
var hookSink = sync.OnceValue(func() string {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})).URL
})

// allowLocalHooks lets the table's servers send hooks to loopback
// receivers, so that a hook test can succeed.
func allowLocalHooks() apptest.Option {
	return apptest.Configure(func(c *config.Config) { c.Webhooks.AllowLocalRequests = true })
}
