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

// request is what every API handler decodes first: the caller and the
// project {id} names.
type request struct {
	caller *domain.Caller
	ref    domain.IDOrPath
}

// decoder reads one part of a request (a path parameter, the parameters,
// the page) into typed input.
type decoder func(r *http.Request) error

// decode reads the caller, the {id} project and then parts, in order. A
// request that does not decode is first answered with the refusal the use
// case behind n would give its caller (401, 404 or 403), as every endpoint
// checked access before it looked at its parameters: whoever may not use
// an endpoint learns nothing from its validation.
func (h handlers) decode(r *http.Request, n need, parts ...decoder) (request, error) {
	q := request{caller: httpx.CallerOf(r)}
	ref, err := httpx.RefParam(r, "id")
	if err == nil {
		q.ref = ref
		for _, part := range parts {
			if err = part(r); err != nil {
				break
			}
		}
	}
	if err != nil {
		if refused := h.s.refusal(r.Context(), q.caller, q.ref, n); refused != nil {
			return q, refused
		}
		return q, err
	}
	return q, nil
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
