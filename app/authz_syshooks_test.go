package app_test

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core/domain"
)

// systemHookRoutes are the system hooks rows: administrators only (401
// for anonymous callers, 403 for everyone else, whatever they can see).
// No kept check: reading a system hook back (GET /hooks/:id) would send
// it a test. The hooks point at the table's loopback sink.
func systemHookRoutes() map[string]routeCase {
	form := func(n int) any {
		return vals("url", fmt.Sprintf("%s/system/%d", hookSink(), n), "push_events", "false")
	}
	fresh := func(tr *tracker) string {
		clearSystemHooks(tr)
		return fmt.Sprintf("/hooks/%d", tr.id("/hooks", form(tr.next())))
	}
	return map[string]routeCase{
		"GET /api/v4/hooks": {rule: adminOnly, req: get("/hooks")},
		"POST /api/v4/hooks": {rule: adminOnly, req: prepared("POST", func(tr *tracker, _ actor) (string, any) {
			clearSystemHooks(tr)
			return "/hooks", form(tr.next())
		})},
		"GET /api/v4/hooks/{id}": {rule: adminOnly, req: prepared("GET", func(tr *tracker, _ actor) (string, any) {
			return fresh(tr), nil
		})},
		"DELETE /api/v4/hooks/{id}": {rule: adminOnly, req: prepared("DELETE", func(tr *tracker, _ actor) (string, any) {
			return fresh(tr), nil
		})},
	}
}

// clearSystemHooks deletes the system hooks earlier cells left: every
// system hook receives every system event, and the later cells' fixtures
// (users, projects, members) would otherwise queue a delivery to each.
func clearSystemHooks(tr *tracker) {
	store := tr.w.srv.Store.SystemHooks()
	hooks, _, err := store.List(context.Background(), domain.Page{Page: 1, PerPage: 100})
	if err != nil {
		tr.w.t.Fatalf("list system hooks: %v", err)
	}
	for _, h := range hooks {
		if err := store.Delete(context.Background(), h.ID); err != nil {
			tr.w.t.Fatalf("delete system hook %d: %v", h.ID, err)
		}
	}
}
