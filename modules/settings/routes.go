package settings

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/httpx"
)

func routes(s *Service) httpx.Routes {
	h := handlers{s: s}
	return httpx.Routes{Module: "settings", Routes: []httpx.Route{
		{Method: http.MethodGet, Pattern: "/application/settings", Handle: h.get},
		{Method: http.MethodPut, Pattern: "/application/settings", Handle: h.update},
	}}
}
