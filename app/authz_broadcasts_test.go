package app_test

import "fmt"

// broadcastRoutes are the broadcast messages rows: administrators only
// (authenticate!, then authenticated_as_admin!: 401 for anonymous
// callers, 403 for everyone else). A refused update or delete leaves the
// message as it was.
func broadcastRoutes() map[string]routeCase {
	// fresh makes a message as root and remembers it for the kept check.
	fresh := func(tr *tracker) string {
		tr.last = fmt.Sprintf("/broadcast_messages/%d", tr.id("/broadcast_messages", vals("message", fmt.Sprintf("m%d", tr.next()))))
		return tr.last
	}
	const one = "/api/v4/broadcast_messages/{id}"
	return map[string]routeCase{
		"GET /api/v4/broadcast_messages": {rule: adminOnly, req: get("/broadcast_messages")},
		"POST /api/v4/broadcast_messages": {rule: adminOnly, req: prepared("POST", func(tr *tracker, _ actor) (string, any) {
			return "/broadcast_messages", vals("message", fmt.Sprintf("m%d", tr.next()))
		})},
		"GET " + one: {rule: adminOnly, req: prepared("GET", func(tr *tracker, _ actor) (string, any) {
			return fresh(tr), nil
		})},
		"PUT " + one: {rule: adminOnly, kept: true, req: prepared("PUT", func(tr *tracker, _ actor) (string, any) {
			return fresh(tr), vals("message", "changed")
		})},
		"DELETE " + one: {rule: adminOnly, kept: true, req: prepared("DELETE", func(tr *tracker, _ actor) (string, any) {
			return fresh(tr), nil
		})},
	}
}
