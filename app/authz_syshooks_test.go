package app_test

import "fmt"

// systemHookRoutes are the system hooks rows: administrators only (401
// for anonymous callers, 403 for everyone else, whatever they can see).
// No kept check: reading a system hook back (GET /hooks/:id) would send
// it a test.
func systemHookRoutes() map[string]routeCase {
	form := func(n int) any { return vals("url", fmt.Sprintf("http://203.0.113.%d/system", n%250+1)) }
	fresh := func(tr *tracker) string { return fmt.Sprintf("/hooks/%d", tr.id("/hooks", form(tr.next()))) }
	return map[string]routeCase{
		"GET /api/v4/hooks": {rule: adminOnly, req: get("/hooks")},
		"POST /api/v4/hooks": {rule: adminOnly, req: prepared("POST", func(tr *tracker, _ actor) (string, any) {
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
