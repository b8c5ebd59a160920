package members

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// routes lists the module's endpoints under /api/v4: the same six for
// projects and groups, both addressed by {id} (numeric ID or URL-encoded
// full path) as every module does.
func routes(s *Service) httpx.Routes {
	h := handlers{s}
	var rs []httpx.Route
	for _, src := range []struct {
		prefix string
		kind   domain.MemberSource
	}{
		{"/projects/{id}", domain.MemberOfProject},
		{"/groups/{id}", domain.MemberOfGroup},
	} {
		k := src.kind
		rs = append(rs,
			httpx.Route{Method: http.MethodGet, Pattern: src.prefix + "/members", Handle: h.list(k, false)},
			httpx.Route{Method: http.MethodGet, Pattern: src.prefix + "/members/all", Handle: h.list(k, true)},
			httpx.Route{Method: http.MethodPost, Pattern: src.prefix + "/members", Handle: h.add(k)},
			httpx.Route{Method: http.MethodGet, Pattern: src.prefix + "/members/{user_id}", Handle: h.get(k)},
			httpx.Route{Method: http.MethodPut, Pattern: src.prefix + "/members/{user_id}", Handle: h.update(k)},
			httpx.Route{Method: http.MethodDelete, Pattern: src.prefix + "/members/{user_id}", Handle: h.remove(k)},
		)
	}
	return httpx.Routes{Module: "members", Routes: rs}
}
