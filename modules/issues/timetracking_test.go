package issues_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
)

// timeStatsJSON is GitLab's IssuableTimeStats entity.
type timeStatsJSON struct {
	TimeEstimate        int64   `json:"time_estimate"`
	TotalTimeSpent      int64   `json:"total_time_spent"`
	HumanTimeEstimate   *string `json:"human_time_estimate"`
	HumanTotalTimeSpent *string `json:"human_total_time_spent"`
}

func (ts timeStatsJSON) String() string {
	return fmt.Sprintf("%d/%d %q/%q", ts.TimeEstimate, ts.TotalTimeSpent, str(ts.HumanTimeEstimate), str(ts.HumanTotalTimeSpent))
}

// TestTimeTracking: estimates and spent time in GitLab's working-time
// durations, their human forms, negatives, resets, system notes, and the
// errors, on both databases.
func TestTimeTracking(t *testing.T) {
	t.Parallel()
	for name, driver := range map[string]apptest.Option{"sqlite": apptest.Driver("sqlite"), "postgres": apptest.Postgres()} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testTimeTracking(t, newServer(t, driver))
		})
	}
}

func testTimeTracking(t *testing.T, s *server) {
	pid := s.project("tracked", "public")
	rep := s.person("rep")
	s.member(pid, rep, reporter)
	is := s.create(rep.token, pid, "Work")
	path := func(suffix string) string { return issuePath(pid, is.IID, "/"+suffix) }
	call := func(status int, suffix string, body any, want string) {
		t.Helper()
		var got timeStatsJSON
		s.Expect(status, "POST", path(suffix), rep.token, body).Decode(t, &got)
		if got.String() != want {
			t.Errorf("POST %s %v: %s, want %s", suffix, body, got, want)
		}
		var read timeStatsJSON
		s.Expect(200, "GET", path("time_stats"), "", nil).Decode(t, &read)
		if read.String() != got.String() {
			t.Errorf("time_stats after %s: %s, want %s", suffix, read, got)
		}
	}
	var zero timeStatsJSON
	s.Expect(200, "GET", path("time_stats"), rep.token, nil).Decode(t, &zero)
	if zero.String() != `0/0 "<null>"/"<null>"` {
		t.Errorf("new issue's time stats: %s", zero)
	}

	call(200, "time_estimate", form("duration", "3h30m"), `12600/0 "3h 30m"/"<null>"`)
	call(201, "add_spent_time", form("duration", "1w2d3h4m5s"), `12600/212645 "3h 30m"/"1w 2d 3h 4m 5s"`)
	call(201, "add_spent_time", map[string]any{"duration": "-1h"}, `12600/209045 "3h 30m"/"1w 2d 2h 4m 5s"`)
	call(200, "time_estimate", form("duration", "2"), `7200/209045 "2h"/"1w 2d 2h 4m 5s"`) // hours by default

	// Errors change nothing.
	s.ExpectBody(400, `{"message":{"time_spent":["Time to subtract exceeds the total time spent"]}}`,
		"POST", path("add_spent_time"), rep.token, form("duration", "-1mo"))
	s.ExpectBody(400, `{"message":{"time_estimate":["has an invalid format"]}}`,
		"POST", path("time_estimate"), rep.token, form("duration", "soon"))
	s.ExpectBody(400, `{"message":{"time_estimate":["must be greater than or equal to 0"]}}`,
		"POST", path("time_estimate"), rep.token, form("duration", "-1h"))
	s.ExpectBody(400, `{"message":{"timelogs":["is invalid"]}}`,
		"POST", path("add_spent_time"), rep.token, form("duration", "0"))
	for _, suffix := range []string{"time_estimate", "add_spent_time"} {
		s.ExpectBody(400, `{"error":"duration is missing"}`, "POST", path(suffix), rep.token, nil)
	}

	call(200, "reset_spent_time", nil, `7200/0 "2h"/"<null>"`)
	call(200, "reset_time_estimate", nil, `0/0 "<null>"/"<null>"`)
	call(200, "reset_time_estimate", nil, `0/0 "<null>"/"<null>"`) // no change, no note
	want := []string{
		"changed time estimate to 3h 30m", "added 1w 2d 3h 4m 5s of time spent", "subtracted 1h of time spent",
		"changed time estimate to 2h", "removed time spent", "removed time estimate",
	}
	for i := range want {
		want[i] = fmt.Sprintf("%d: %s", rep.id, want[i])
	}
	if got := s.systemNotes(is.ID); join(got) != join(want) {
		t.Errorf("system notes:\n%s\nwant\n%s", join(got), join(want))
	}

	// Concurrent additions all count.
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Expect(201, "POST", path("add_spent_time"), rep.token, form("duration", "30m"))
		}()
	}
	wg.Wait()
	var got timeStatsJSON
	s.Expect(200, "GET", path("time_stats"), rep.token, nil).Decode(t, &got)
	if got.String() != `0/14400 "<null>"/"4h"` {
		t.Errorf("after 8 concurrent additions of 30m: %s", got)
	}
}

// TestTimeTrackingPermissions: reporters and up change time stats
// (GitLab's admin_issue), the issue's readers read them; a confidential
// issue is the issue's 404 to those who may not see it.
func TestTimeTrackingPermissions(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("perms", "public")
	priv := s.project("hidden", "private")
	author, rep, outsider := s.person("author"), s.person("rep"), s.person("outsider")
	s.member(pid, author, guest)
	s.member(pid, rep, reporter)
	s.create(author.token, pid, "Open")
	s.create(rep.token, pid, "Secret", "confidential", "true")
	s.create(s.RootToken, priv, "Private")
	writes := []string{"time_estimate", "reset_time_estimate", "add_spent_time", "reset_spent_time"}
	body := form("duration", "1h")

	for _, suffix := range writes {
		p := issuePath(pid, 1, "/"+suffix)
		s.ExpectBody(401, unauthorized, "POST", p, "", body)
		s.ExpectBody(403, forbidden, "POST", p, author.token, body) // the author, a guest
		s.ExpectBody(403, forbidden, "POST", p, outsider.token, body)
		s.ExpectBody(404, issueNotFound, "POST", issuePath(pid, 2, "/"+suffix), author.token, body)
		s.ExpectBody(404, issueNotFound, "POST", issuePath(pid, 99, "/"+suffix), rep.token, body)
		s.ExpectBody(404, projectNotFound, "POST", issuePath(priv, 1, "/"+suffix), outsider.token, body)
		// Access comes before the parameters.
		s.ExpectBody(404, projectNotFound, "POST", issuePath(priv, 1, "/"+suffix), outsider.token, nil)
	}
	s.Expect(201, "POST", issuePath(pid, 2, "/add_spent_time"), rep.token, body)
	s.Expect(201, "POST", issuePath(pid, 1, "/add_spent_time"), s.RootToken, body)

	for _, v := range []struct {
		name, token string
		sees        bool
	}{{"anonymous", "", false}, {"outsider", outsider.token, false}, {"author", author.token, false}, {"reporter", rep.token, true}} {
		s.Expect(200, "GET", issuePath(pid, 1, "/time_stats"), v.token, nil)
		if v.sees {
			s.Expect(200, "GET", issuePath(pid, 2, "/time_stats"), v.token, nil)
		} else {
			s.ExpectBody(404, issueNotFound, "GET", issuePath(pid, 2, "/time_stats"), v.token, nil)
		}
		s.ExpectBody(404, projectNotFound, "GET", issuePath(priv, 1, "/time_stats"), v.token, nil)
	}
}
