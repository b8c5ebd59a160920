package mergerequests_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

type timeStatsJSON struct {
	TimeEstimate        int64   `json:"time_estimate"`
	TotalTimeSpent      int64   `json:"total_time_spent"`
	HumanTimeEstimate   *string `json:"human_time_estimate"`
	HumanTotalTimeSpent *string `json:"human_total_time_spent"`
}

func (ts timeStatsJSON) String() string {
	return fmt.Sprintf("%d/%d %q/%q", ts.TimeEstimate, ts.TotalTimeSpent, str(ts.HumanTimeEstimate), str(ts.HumanTotalTimeSpent))
}

// TestTimeTracking: merge requests track time as issues do, on both
// databases; developers and up change it (GitLab's admin_merge_request),
// the project's merge request readers read it.
func TestTimeTracking(t *testing.T) {
	t.Parallel()
	for name, driver := range map[string]apptest.Option{"sqlite": apptest.Driver("sqlite"), "postgres": apptest.Postgres()} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testTimeTracking(t, newServer(t, driver))
		})
	}
}

func testTimeTracking(t *testing.T, s *mrServer) {
	r := s.seed("tracked", "public")
	dev, rep := s.person("dev"), s.person("rep")
	s.member(r.id, dev, developer)
	s.member(r.id, rep, reporter)
	m := s.create(dev.token, r.id, "feature", "master", "Work")
	path := func(suffix string) string { return mrPath(r.id, m.IID, "/"+suffix) }
	call := func(status int, suffix string, body any, want string) {
		t.Helper()
		var got, read timeStatsJSON
		s.Expect(status, "POST", path(suffix), dev.token, body).Decode(t, &got)
		s.Expect(200, "GET", path("time_stats"), "", nil).Decode(t, &read)
		if got.String() != want || read.String() != want {
			t.Errorf("POST %s %v: %s, then time_stats %s; want %s", suffix, body, got, read, want)
		}
	}
	call(200, "time_estimate", form("duration", "1w"), `144000/0 "1w"/"<null>"`)
	call(201, "add_spent_time", form("duration", "4w 1d"), `144000/604800 "1w"/"1mo 1d"`)
	call(201, "add_spent_time", form("duration", "-1d"), `144000/576000 "1w"/"1mo"`)
	s.ExpectBody(400, `{"message":{"time_spent":["Time to subtract exceeds the total time spent"]}}`,
		"POST", path("add_spent_time"), dev.token, form("duration", "-5w"))
	s.ExpectBody(400, `{"message":{"time_estimate":["has an invalid format"]}}`,
		"POST", path("time_estimate"), dev.token, form("duration", "x"))
	s.ExpectBody(400, `{"error":"duration is missing"}`, "POST", path("add_spent_time"), dev.token, nil)
	call(200, "reset_spent_time", nil, `144000/0 "1w"/"<null>"`)
	call(200, "reset_time_estimate", nil, `0/0 "<null>"/"<null>"`)

	var notes []struct {
		Body   string `json:"body"`
		System bool   `json:"system"`
	}
	s.JSON(t, "GET", path("notes")+"?sort=asc", dev.token, nil, 200, &notes)
	var bodies []string
	for _, n := range notes {
		if n.System {
			bodies = append(bodies, n.Body)
		}
	}
	want := "changed time estimate to 1w,added 1mo 1d of time spent,subtracted 1d of time spent,removed time spent,removed time estimate"
	if got := fmt.Sprint(bodies); got != fmt.Sprint(splitComma(want)) {
		t.Errorf("system notes %s, want %s", got, want)
	}

	// Permissions: reporters read but may not change.
	s.ExpectBody(403, forbidden, "POST", path("add_spent_time"), rep.token, form("duration", "1h"))
	s.ExpectBody(401, unauthorized, "POST", path("reset_spent_time"), "", nil)
	s.ExpectBody(404, `{"message":"404 Merge Request Not Found"}`, "POST", mrPath(r.id, 99, "/time_estimate"), dev.token, form("duration", "1h"))
	s.ExpectBody(404, `{"message":"404 Merge Request Not Found"}`, "GET", mrPath(r.id, 99, "/time_stats"), dev.token, nil)
	s.Expect(200, "GET", path("time_stats"), rep.token, nil)

	priv := s.seed("hidden", "private")
	s.create(s.RootToken, priv.id, "feature", "master", "Private")
	outsider := s.person("outsider")
	for _, suffix := range []string{"time_estimate", "reset_time_estimate", "add_spent_time", "reset_spent_time"} {
		s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", mrPath(priv.id, 1, "/"+suffix), outsider.token, form("duration", "1h"))
	}
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "GET", mrPath(priv.id, 1, "/time_stats"), outsider.token, nil)
}

func splitComma(s string) []string { return strings.Split(s, ",") }
