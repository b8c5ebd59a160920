package repository

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// handlers decode a request into typed input, call one use case of the
// service and render its result in GitLab's JSON. They hold nothing but
// the service.
type handlers struct{ s *Service }

// decoder reads one part of a request (a path parameter, the parameters,
// the page) into typed input.
type decoder func(r *http.Request) error

// decode reads the caller, the {id} project and then parts, in order. The
// first part that does not decode stops the rest and travels as the
// request's Invalid, which the use case reports after its access checks;
// an {id} that does not decode leaves the zero reference, the use case's
// 400 "id is invalid" after any 401.
func decode(r *http.Request, parts ...decoder) Request {
	req := Request{Caller: httpx.CallerOf(r)}
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		req.Invalid = err
		return req
	}
	req.Project = ref
	for _, part := range parts {
		if err := part(r); err != nil {
			req.Invalid = err
			break
		}
	}
	return req
}

// params decodes the query, form or JSON parameters into dst.
func params(dst any) decoder {
	return func(r *http.Request) error { return httpx.Decode(r, dst) }
}

// page decodes page and per_page.
func page(pg *domain.Page) decoder {
	return func(r *http.Request) (err error) {
		*pg, err = httpx.PageOf(r)
		return err
	}
}

// pathParam decodes the URL-encoded path parameter name ("" when absent:
// the use case answers its 404).
func pathParam(name string, dst *string) decoder {
	return func(r *http.Request) (err error) {
		*dst, err = httpx.PathParam(r, name)
		return err
	}
}
