package app_test

import "fmt"

// triggerRoutes are the authorization rows of pipeline triggers and the
// CI lint: masters manage triggers (admin_build); the trigger itself
// opens with its token only, never with a user's credential (a wrong
// token is everyone's 404); anyone may lint.
func triggerRoutes() map[string]routeCase {
	const api = "/api/v4/projects/{id}"
	const p = "/projects/{project}"
	// fresh makes a trigger as root and names it (tracker.last) for kept.
	fresh := func(suffix string) func(tr *tracker, _ *ciState) (string, any) {
		return func(tr *tracker, _ *ciState) (string, any) {
			id := tr.id(fmt.Sprintf("/projects/%d/triggers", tr.f.projectID), vals("description", "fixture"))
			tr.last = fmt.Sprintf("/projects/%d/triggers/%d", tr.f.projectID, id)
			return fmt.Sprintf("%s/triggers/%d%s", p, id, suffix), nil
		}
	}
	edit := func(tr *tracker, c *ciState) (string, any) {
		path, _ := fresh("")(tr, c)
		return path, vals("description", "edited")
	}
	bad := func(*tracker) any { return vals("token", "not-a-trigger-token", "ref", "master") }
	return map[string]routeCase{
		"GET " + api + "/triggers":                              {rule: masterLevel, req: ciGet(p + "/triggers")},
		"POST " + api + "/triggers":                             {rule: masterLevel, req: ciSend("POST", p+"/triggers", func(*tracker) any { return vals("description", "new") })},
		"GET " + api + "/triggers/{trigger_id}":                 {rule: masterLevel, req: ciPrepared("GET", fresh(""))},
		"PUT " + api + "/triggers/{trigger_id}":                 {rule: masterLevel, kept: true, req: ciPrepared("PUT", edit)},
		"POST " + api + "/triggers/{trigger_id}/take_ownership": {rule: masterLevel, kept: true, req: ciPrepared("POST", fresh("/take_ownership"))},
		"DELETE " + api + "/triggers/{trigger_id}":              {rule: masterLevel, kept: true, req: ciPrepared("DELETE", fresh(""))},
		"POST " + api + "/trigger/pipeline":                     {rule: runnerOnly, req: ciSend("POST", p+"/trigger/pipeline", bad)},
		"POST " + api + "/ref/{ref}/trigger/pipeline":           {rule: runnerOnly, req: ciSend("POST", p+"/ref/master/trigger/pipeline", bad)},
		"POST /api/v4/ci/lint":                                  {rule: anyone, req: send("POST", "/ci/lint", func(*world, *fixture, actor) any { return vals("content", "test:\n  script: make\n") })},
	}
}
