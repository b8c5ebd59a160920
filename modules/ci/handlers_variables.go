package ci

import (
	"net/http"

	"github.com/hearth-forge/hearth/core/httpx"
)

// variableKey reads {key}.
func variablePath(r *http.Request) (key string, err error) {
	return httpx.PathParam(r, "key")
}

// decodeVariable reads a variable's parameters; on create key and value
// are required.
func decodeVariable(r *http.Request, create bool) VariableInput {
	var in VariableInput
	var p httpx.Problems
	if err := p.Decode(r, &in); err != nil {
		in.Invalid = err
		return in
	}
	if create {
		var missing []string
		if in.Key == nil {
			missing = append(missing, "key is missing")
		}
		if in.Value == nil {
			missing = append(missing, "value is missing")
		}
		p = append(missing, p...)
	}
	in.Invalid = p.Err()
	return in
}

// GET /projects/:id/variables
func (h handlers) variables(w http.ResponseWriter, r *http.Request) error {
	ref, err := writePath(r)
	if err != nil {
		return err
	}
	pg, perr := httpx.PageOf(r)
	l, err := h.s.Variables(r.Context(), httpx.CallerOf(r), ref, pg, perr)
	if err != nil {
		return err
	}
	out := make([]variableJSON, 0, len(l.Variables))
	for i := range l.Variables {
		out = append(out, variableOf(&l.Variables[i]))
	}
	return httpx.Paginated(w, r, out, l.Total, pg)
}

// GET /projects/:id/variables/:key
func (h handlers) variable(w http.ResponseWriter, r *http.Request) error {
	ref, err := writePath(r)
	if err != nil {
		return err
	}
	key, err := variablePath(r)
	if err != nil {
		return err
	}
	v, err := h.s.Variable(r.Context(), httpx.CallerOf(r), ref, key)
	if err != nil {
		return err
	}
	return httpx.OK(w, variableOf(v))
}

// POST /projects/:id/variables
func (h handlers) createVariable(w http.ResponseWriter, r *http.Request) error {
	ref, err := writePath(r)
	if err != nil {
		return err
	}
	v, err := h.s.CreateVariable(r.Context(), httpx.CallerOf(r), ref, decodeVariable(r, true))
	if err != nil {
		return err
	}
	return httpx.Created(w, variableOf(v))
}

// PUT /projects/:id/variables/:key
func (h handlers) updateVariable(w http.ResponseWriter, r *http.Request) error {
	ref, err := writePath(r)
	if err != nil {
		return err
	}
	key, err := variablePath(r)
	if err != nil {
		return err
	}
	v, err := h.s.UpdateVariable(r.Context(), httpx.CallerOf(r), ref, key, decodeVariable(r, false))
	if err != nil {
		return err
	}
	return httpx.OK(w, variableOf(v))
}

// DELETE /projects/:id/variables/:key: 204.
func (h handlers) deleteVariable(w http.ResponseWriter, r *http.Request) error {
	ref, err := writePath(r)
	if err != nil {
		return err
	}
	key, err := variablePath(r)
	if err != nil {
		return err
	}
	if err := h.s.DeleteVariable(r.Context(), httpx.CallerOf(r), ref, key); err != nil {
		return err
	}
	return httpx.NoContent(w)
}
