package httpx_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/core/httpx"
)

// TestProblems: decoding, values and at-least-one problems come out as one
// GitLab 400, in the order they were found; none is no error.
func TestProblems(t *testing.T) {
	rt, _ := newRouter(t, httpx.Routes{Module: "problems", Routes: []httpx.Route{
		{Method: http.MethodPost, Pattern: "/problems", Handle: func(w http.ResponseWriter, r *http.Request) error {
			var in struct {
				Name string  `param:"name,required"`
				Sort *string `param:"sort"`
				Page *int    `param:"page"`
			}
			var bad httpx.Problems
			if err := bad.Decode(r, &in); err != nil {
				return err
			}
			bad.OneOf("sort", in.Sort, "asc", "desc")
			bad.AtLeastOneOf(r, "name", "path")
			if err := bad.Err(); err != nil {
				return err
			}
			return httpx.OK(w, map[string]bool{"sort": httpx.Has(r, "sort"), "path": httpx.Has(r, "path")})
		}},
	}})
	post := func(form string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/api/v4/problems", strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return serve(rt, req)
	}
	rec := post("sort=up&page=abc")
	want := "name is missing, page is invalid, sort does not have a valid value, name, path are missing, at least one parameter must be provided"
	if rec.Code != 400 || body(t, rec)["error"] != want {
		t.Fatalf("%d %s, want 400 %q", rec.Code, rec.Body, want)
	}
	rec = post("name=x&sort=asc")
	if m := body(t, rec); rec.Code != 200 || m["sort"] != true || m["path"] != false {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
}
