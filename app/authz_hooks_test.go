package app_test

import "fmt"

// hookRoutes are the project hooks rows: masters and owners manage a
// project's hooks (GitLab's authorize_admin_project), developers get 403,
// who cannot see the project 404, anonymous callers 401 first.
func hookRoutes() map[string]routeCase {
	const api = "/api/v4/projects/{id}"
	const p = "/projects/{project}"
	form := func(n int) any { return vals("url", fmt.Sprintf("http://203.0.113.%d/hook", n%250+1)) }
	// fresh makes a hook as root for the cell and names it.
	fresh := func(tr *tracker) string {
		return fmt.Sprintf("%s/hooks/%d", p, tr.fresh("hooks", vals("url", "http://203.0.113.1/fixture"), "id"))
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
	}
}
