package ci_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

func TestVariablesAPI(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s *server) {
		pid := s.project("vars", "public")
		master, dev, outsider := s.person("master"), s.person("dev"), s.person("out")
		s.member(pid, master, domain.Master)
		s.member(pid, dev, domain.Developer)
		base := fmt.Sprintf("/projects/%d/variables", pid)

		s.ExpectBody(401, `{"message":"401 Unauthorized"}`, "GET", base, "", nil)
		s.ExpectBody(403, `{"message":"403 Forbidden"}`, "GET", base, dev.token, nil)
		s.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", base, outsider.token, apptest.Form("key", "A", "value", "b"))
		private := s.project("hidden", "private")
		s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "GET", fmt.Sprintf("/projects/%d/variables", private), outsider.token, nil)

		s.ExpectBody(400, `{"error":"key is missing, value is missing"}`, "POST", base, master.token, nil)
		s.ExpectBody(201, `{"variable_type":"env_var","key":"TOKEN","value":"s3cr3t-value","protected":true,"masked":true,"environment_scope":"*"}`,
			"POST", base, master.token, apptest.Form("key", "TOKEN", "value", "s3cr3t-value", "protected", "true", "masked", "true"))
		s.ExpectBody(400, `{"message":{"key":["(TOKEN) has already been taken"]}}`, "POST", base, master.token, apptest.Form("key", "TOKEN", "value", "x"))
		s.ExpectBody(400, `{"message":{"key":["can contain only letters, digits and '_'."]}}`, "POST", base, master.token, apptest.Form("key", "BAD-KEY", "value", "x"))
		s.ExpectBody(400, `{"message":{"key":["is too long (maximum is 255 characters)"]}}`, "POST", base, master.token, apptest.Form("key", strings.Repeat("K", 256), "value", "x"))
		s.ExpectBody(400, `{"message":{"key":["can't be blank"]}}`, "POST", base, master.token, apptest.Form("key", "", "value", "x"))
		for _, v := range []string{"short", "has space here", "line\nbreak!!", "bad$chars!!"} {
			s.ExpectBody(400, `{"message":{"value":["is invalid"]}}`, "POST", base, master.token, apptest.Form("key", "M", "value", v, "masked", "true"))
		}
		s.Expect(201, "POST", base, master.token, map[string]any{"key": "PLAIN", "value": "a b\nc"})

		l := s.Expect(200, "GET", base, master.token, nil)
		if got := apptest.Ordered(l.List(t), "key"); strings.Join(got, ",") != "PLAIN,TOKEN" && strings.Join(got, ",") != "TOKEN,PLAIN" {
			t.Fatalf("list %v", got)
		}
		if l.Header.Get("X-Total") != "2" {
			t.Fatalf("X-Total %q", l.Header.Get("X-Total"))
		}
		s.ExpectBody(200, `{"variable_type":"env_var","key":"PLAIN","value":"a b\nc","protected":false,"masked":false,"environment_scope":"*"}`, "GET", base+"/PLAIN", master.token, nil)
		s.ExpectBody(404, `{"message":"404 Variable Not Found"}`, "GET", base+"/NOPE", master.token, nil)

		s.ExpectBody(200, `{"variable_type":"env_var","key":"PLAIN","value":"new","protected":true,"masked":false,"environment_scope":"*"}`,
			"PUT", base+"/PLAIN", master.token, apptest.Form("value", "new", "protected", "true"))
		s.ExpectBody(400, `{"message":{"value":["is invalid"]}}`, "PUT", base+"/PLAIN", master.token, apptest.Form("masked", "true"))
		s.ExpectBody(400, `{"message":{"key":["(TOKEN) has already been taken"]}}`, "PUT", base+"/PLAIN", master.token, apptest.Form("key", "TOKEN"))
		s.ExpectBody(404, `{"message":"404 Variable Not Found"}`, "PUT", base+"/NOPE", master.token, apptest.Form("value", "x"))
		s.Expect(200, "PUT", base+"/PLAIN", master.token, apptest.Form("key", "RENAMED"))
		s.Expect(200, "GET", base+"/RENAMED", master.token, nil)

		s.Expect(403, "DELETE", base+"/RENAMED", dev.token, nil)
		s.Expect(204, "DELETE", base+"/RENAMED", master.token, nil)
		s.ExpectBody(404, `{"message":"404 Variable Not Found"}`, "DELETE", base+"/RENAMED", master.token, nil)
	})
}
