package broadcasts_test

import (
	"fmt"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/modules/broadcasts"
)

const gitlabTime = "2006-01-02T15:04:05.000Z"

// at parses a rendered time.
func at(t *testing.T, v any) time.Time {
	t.Helper()
	tm, err := time.Parse(gitlabTime, fmt.Sprint(v))
	if err != nil {
		t.Fatalf("time %v: %v", v, err)
	}
	return tm
}

// TestBroadcastMessagesPermissions: administrators only, 401 for
// anonymous callers and 403 for other users before the id or the
// parameters are looked at.
func TestBroadcastMessagesPermissions(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t)
	c := srv.Client(t)
	root := srv.RootToken
	_, alice := c.User("alice")
	id := apptest.ID(c.Expect(201, "POST", "/broadcast_messages", root, apptest.Form("message", "hi")).Object(t))
	one := fmt.Sprintf("/broadcast_messages/%d", id)
	reqs := []struct {
		method, path string
		body         any
	}{
		{"GET", "/broadcast_messages", nil},
		{"POST", "/broadcast_messages", apptest.Form("message", "x")},
		{"POST", "/broadcast_messages", apptest.Form("color", "nope")}, // invalid too
		{"GET", one, nil},
		{"GET", "/broadcast_messages/999999", nil},
		{"GET", "/broadcast_messages/abc", nil},
		{"PUT", one, apptest.Form("message", "x")},
		{"DELETE", one, nil},
		{"DELETE", "/broadcast_messages/999999", nil},
	}
	for _, r := range reqs {
		c.ExpectBody(401, `{"message":"401 Unauthorized"}`, r.method, r.path, "", r.body)
		c.ExpectBody(403, `{"message":"403 Forbidden"}`, r.method, r.path, alice, r.body)
	}
	// Nothing the refused callers sent changed anything.
	got := c.Expect(200, "GET", one, root, nil).Object(t)
	if got["message"] != "hi" {
		t.Errorf("message after refused calls: %v", got)
	}
	if l := c.Expect(200, "GET", "/broadcast_messages", root, nil).List(t); len(l) != 1 {
		t.Errorf("messages after refused calls: %v", l)
	}
}

func TestBroadcastMessagesAPI(t *testing.T) {
	t.Parallel()
	apptest.EachDriver(t, func(t *testing.T, c *apptest.Client) {
		root := c.Srv.RootToken

		// Defaults: from now for an hour, GitLab's colours, active.
		before := time.Now().UTC().Add(-time.Second)
		m := c.Expect(201, "POST", "/broadcast_messages", root, apptest.Form("message", "Maintenance at 5")).Object(t)
		if len(m) != 7 {
			t.Errorf("entity %v, want id, message, starts_at, ends_at, color, font, active", m)
		}
		starts, ends := at(t, m["starts_at"]), at(t, m["ends_at"])
		if starts.Before(before) || starts.After(time.Now().Add(time.Second)) || !ends.Equal(starts.Add(time.Hour)) {
			t.Errorf("default times %v .. %v", starts, ends)
		}
		if m["message"] != "Maintenance at 5" || m["color"] != "#E75E40" || m["font"] != "#FFFFFF" || m["active"] != true {
			t.Errorf("created %v", m)
		}
		id := apptest.ID(m)
		one := fmt.Sprintf("/broadcast_messages/%d", id)
		if got := c.Expect(200, "GET", one, root, nil).Object(t); fmt.Sprint(got) != fmt.Sprint(m) {
			t.Errorf("GET %v, want %v", got, m)
		}

		// Everything given, as python-gitlab sends it (JSON); times in
		// any zone come back in UTC with milliseconds.
		x := c.Expect(201, "POST", "/broadcast_messages", root, map[string]any{"message": "Later",
			"starts_at": "2030-01-02T03:04:05.678+02:00", "ends_at": "2030-01-03T00:00:00Z", "color": "#abc", "font": "#00FF00"}).Object(t)
		if x["starts_at"] != "2030-01-02T01:04:05.678Z" || x["ends_at"] != "2030-01-03T00:00:00.000Z" ||
			x["color"] != "#abc" || x["font"] != "#00FF00" || x["active"] != false {
			t.Errorf("created %v", x)
		}
		xid := apptest.ID(x)

		// Validation: Grape's parameter errors, then the model's.
		post := func(status int, want string, body any) {
			t.Helper()
			c.ExpectBody(status, want, "POST", "/broadcast_messages", root, body)
		}
		post(400, `{"error":"message is missing"}`, apptest.Form("color", "#fff"))
		post(400, `{"error":"message is missing, starts_at is invalid"}`, apptest.Form("starts_at", "soon"))
		post(400, `{"message":{"message":["can't be blank"]}}`, apptest.Form("message", "  "))
		post(400,
			`{"message":{"color":["must be a valid color code"],"font":["must be a valid color code"]}}`,
			apptest.Form("message", "m", "color", "red", "font", "#12345"))
		// As in GitLab, a message ending before it starts is kept, never active.
		backwards := c.Expect(201, "POST", "/broadcast_messages", root,
			apptest.Form("message", "m", "starts_at", "2030-01-02T00:00:00Z", "ends_at", "2030-01-01T00:00:00Z")).Object(t)
		if backwards["active"] != false {
			t.Errorf("a message ending before it starts is active: %v", backwards)
		}
		c.Expect(200, "DELETE", fmt.Sprintf("/broadcast_messages/%d", apptest.ID(backwards)), root, nil)
		// Blank colours are allowed; a blank time is the default.
		b := c.Expect(201, "POST", "/broadcast_messages", root, apptest.Form("message", "plain", "color", "", "font", "", "starts_at", "")).Object(t)
		if b["color"] != "" || b["font"] != "" || b["active"] != true {
			t.Errorf("blank colours: %v", b)
		}
		bid := apptest.ID(b)

		// Unknown and malformed ids.
		for _, method := range []string{"GET", "PUT", "DELETE"} {
			c.ExpectBody(404, `{"message":"404 Not found"}`, method, "/broadcast_messages/999999", root, apptest.Form("message", "x"))
			c.ExpectBody(400, `{"error":"id is invalid"}`, method, "/broadcast_messages/abc", root, apptest.Form("message", "x"))
		}

		// Update changes what it is given; the times are checked against
		// what is saved.
		xone := fmt.Sprintf("/broadcast_messages/%d", xid)
		u := c.Expect(200, "PUT", xone, root, apptest.Form("message", "Later still", "color", "#123456")).Object(t)
		if u["message"] != "Later still" || u["color"] != "#123456" || u["font"] != "#00FF00" || u["starts_at"] != x["starts_at"] || u["ends_at"] != x["ends_at"] {
			t.Errorf("updated %v", u)
		}
		c.ExpectBody(400, `{"message":{"starts_at":["can't be blank"]}}`, "PUT", xone, root, apptest.Form("starts_at", ""))
		c.ExpectBody(400, `{"message":{"ends_at":["can't be blank"]}}`, "PUT", xone, root, map[string]any{"ends_at": nil})
		c.ExpectBody(400, `{"message":{"message":["can't be blank"]}}`, "PUT", xone, root, apptest.Form("message", ""))
		c.ExpectBody(400, `{"message":{"font":["must be a valid color code"]}}`, "PUT", xone, root, apptest.Form("font", "#ggg"))
		c.ExpectBody(400, `{"error":"ends_at is invalid"}`, "PUT", xone, root, apptest.Form("ends_at", "never"))
		if got := c.Expect(200, "GET", xone, root, nil).Object(t); fmt.Sprint(got) != fmt.Sprint(u) {
			t.Errorf("failed updates changed %v to %v", u, got)
		}
		u = c.Expect(200, "PUT", xone, root, map[string]any{"starts_at": "2029-12-31T00:00:00Z", "ends_at": "2030-01-01T00:00:00Z"}).Object(t)
		if u["starts_at"] != "2029-12-31T00:00:00.000Z" || u["ends_at"] != "2030-01-01T00:00:00.000Z" {
			t.Errorf("moved %v", u)
		}

		// Pagination, oldest first.
		page := c.Expect(200, "GET", "/broadcast_messages?per_page=2", root, nil)
		if l := page.List(t); len(l) != 2 || apptest.ID(l[0]) != id || apptest.ID(l[1]) != xid ||
			page.Header.Get("X-Total") != "3" || page.Header.Get("X-Total-Pages") != "2" || page.Header.Get("X-Next-Page") != "2" {
			t.Errorf("page 1 %s (%v)", page.Body, page.Header)
		}
		page = c.Expect(200, "GET", "/broadcast_messages?per_page=2&page=2", root, nil)
		if l := page.List(t); len(l) != 1 || apptest.ID(l[0]) != bid {
			t.Errorf("page 2 %s", page.Body)
		}
		c.ExpectBody(400, `{"error":"page is invalid"}`, "GET", "/broadcast_messages?page=x", root, nil)

		// Delete answers the message, then it is gone.
		d := c.Expect(200, "DELETE", fmt.Sprintf("/broadcast_messages/%d", bid), root, nil).Object(t)
		if apptest.ID(d) != bid || d["message"] != "plain" {
			t.Errorf("deleted %v", d)
		}
		c.ExpectBody(404, `{"message":"404 Not found"}`, "GET", fmt.Sprintf("/broadcast_messages/%d", bid), root, nil)
		c.ExpectBody(404, `{"message":"404 Not found"}`, "DELETE", fmt.Sprintf("/broadcast_messages/%d", bid), root, nil)
	})
}

// TestBroadcastMessageActive: active from starts_at to ends_at, by the
// server's clock.
func TestBroadcastMessageActive(t *testing.T) {
	t.Parallel()
	var svc *broadcasts.Service
	srv := apptest.New(t, apptest.With(fx.Populate(&svc)))
	c := srv.Client(t)
	root := srv.RootToken
	start := time.Now().UTC().Add(time.Hour)
	m := c.Expect(201, "POST", "/broadcast_messages", root, apptest.Form("message", "soon",
		"starts_at", start.Format(time.RFC3339), "ends_at", start.Add(time.Hour).Format(time.RFC3339))).Object(t)
	one := fmt.Sprintf("/broadcast_messages/%d", apptest.ID(m))
	active := func(want bool) {
		t.Helper()
		if got := c.Expect(200, "GET", one, root, nil).Object(t); got["active"] != want {
			t.Errorf("active = %v, want %v", got["active"], want)
		}
		// Service.Current (an embedder's banner) agrees.
		cur, err := svc.Current(t.Context())
		if err != nil || len(cur) != map[bool]int{false: 0, true: 1}[want] {
			t.Errorf("Current = %v, %v; want active %v", cur, err, want)
		}
		if l := c.Expect(200, "GET", "/broadcast_messages", root, nil).List(t); len(l) != 1 || l[0]["active"] != want {
			t.Errorf("listed %v, want active %v", l, want)
		}
	}
	if m["active"] != false {
		t.Errorf("created %v, want inactive", m)
	}
	active(false)
	srv.Advance(90 * time.Minute)
	active(true)
	srv.Advance(time.Hour)
	active(false)
	// An update that moves it back over now shows it again.
	now := time.Now().UTC().Add(150 * time.Minute)
	c.Expect(200, "PUT", one, root, apptest.Form("starts_at", now.Add(-time.Minute).Format(time.RFC3339),
		"ends_at", now.Add(time.Hour).Format(time.RFC3339)))
	active(true)
}
