package ci

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sort"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// triggerID reads {trigger_id}; anything but a number is reported by the
// use case after its access checks.
func triggerID(r *http.Request) TriggerID {
	n, err := httpx.IntPathParam(r, "trigger_id")
	return TriggerID{ID: n, Invalid: err}
}

func (h handlers) replyTrigger(w http.ResponseWriter, status int, t *Trigger) error {
	return httpx.JSON(w, status, triggerOf(h.present.Base, t))
}

// GET /projects/:id/triggers
func (h handlers) triggers(w http.ResponseWriter, r *http.Request) error {
	ref, err := writePath(r)
	if err != nil {
		return err
	}
	pg, perr := httpx.PageOf(r)
	l, err := h.s.Triggers(r.Context(), httpx.CallerOf(r), ref, pg, perr)
	if err != nil {
		return err
	}
	out := make([]triggerJSON, 0, len(l.Triggers))
	for i := range l.Triggers {
		out = append(out, triggerOf(h.present.Base, &l.Triggers[i]))
	}
	return httpx.Paginated(w, r, out, l.Total, pg)
}

// GET /projects/:id/triggers/:trigger_id
func (h handlers) trigger(w http.ResponseWriter, r *http.Request) error {
	ref, err := writePath(r)
	if err != nil {
		return err
	}
	t, err := h.s.TriggerOf(r.Context(), httpx.CallerOf(r), ref, triggerID(r))
	if err != nil {
		return err
	}
	return h.replyTrigger(w, http.StatusOK, t)
}

// POST /projects/:id/triggers: 201 with the whole token, shown once.
func (h handlers) createTrigger(w http.ResponseWriter, r *http.Request) error {
	ref, err := writePath(r)
	if err != nil {
		return err
	}
	var in TriggerInput
	in.Invalid = httpx.Decode(r, &in)
	t, err := h.s.CreateTrigger(r.Context(), httpx.CallerOf(r), ref, in)
	if err != nil {
		return err
	}
	return h.replyTrigger(w, http.StatusCreated, t)
}

// PUT /projects/:id/triggers/:trigger_id
func (h handlers) updateTrigger(w http.ResponseWriter, r *http.Request) error {
	ref, err := writePath(r)
	if err != nil {
		return err
	}
	var in TriggerInput
	in.Invalid = httpx.Decode(r, &in)
	t, err := h.s.UpdateTrigger(r.Context(), httpx.CallerOf(r), ref, triggerID(r), in)
	if err != nil {
		return err
	}
	return h.replyTrigger(w, http.StatusOK, t)
}

// POST /projects/:id/triggers/:trigger_id/take_ownership: 200 (GitLab
// sets the status explicitly).
func (h handlers) takeTriggerOwnership(w http.ResponseWriter, r *http.Request) error {
	ref, err := writePath(r)
	if err != nil {
		return err
	}
	t, err := h.s.TakeTriggerOwnership(r.Context(), httpx.CallerOf(r), ref, triggerID(r))
	if err != nil {
		return err
	}
	return h.replyTrigger(w, http.StatusOK, t)
}

// DELETE /projects/:id/triggers/:trigger_id: 204.
func (h handlers) deleteTrigger(w http.ResponseWriter, r *http.Request) error {
	ref, err := writePath(r)
	if err != nil {
		return err
	}
	if err := h.s.DeleteTrigger(r.Context(), httpx.CallerOf(r), ref, triggerID(r)); err != nil {
		return err
	}
	return httpx.NoContent(w)
}

// runTriggerParams are the trigger request's parameters; variables come
// as a JSON object or as variables[KEY]=value fields.
type runTriggerParams struct {
	Ref       string          `param:"ref"`
	Token     string          `param:"token"`
	Variables json.RawMessage `param:"variables"`
}

// errVariablesMap is GitLab's answer to variables that are not strings.
var errVariablesMap = core.BadRequest("variables needs to be a map of key-valued strings")

// decodeRunTrigger reads the request: missing parameters first (ref,
// then token, as Grape declares them), then the variables' shape.
func decodeRunTrigger(r *http.Request) (RunTriggerInput, error) {
	p, err := httpx.ParamsOf(r)
	if err != nil {
		return RunTriggerInput{}, err
	}
	var in runTriggerParams
	derr := p.Decode(&in)
	pathRef, _ := httpx.PathParam(r, "ref")
	if pathRef != "" {
		in.Ref = pathRef
	}
	var missing []string
	if in.Ref == "" {
		missing = append(missing, "ref")
	}
	if in.Token == "" {
		missing = append(missing, "token")
	}
	if len(missing) > 0 {
		return RunTriggerInput{}, core.MissingParam(missing...)
	}
	if derr != nil {
		return RunTriggerInput{}, core.InvalidParam("variables")
	}
	vars, err := variablesOf(in.Variables, p.Values())
	if err != nil {
		return RunTriggerInput{}, err
	}
	return RunTriggerInput{Token: in.Token, Ref: in.Ref, Variables: vars}, nil
}

// variablesOf reads a JSON object of strings, or variables[KEY]=value
// form fields, sorted by key. Nested values, arrays and numbers are
// GitLab's 400 message; a variables value that is no map "is invalid".
func variablesOf(raw json.RawMessage, form map[string][]string) ([]domain.TriggerVariable, error) {
	var out []domain.TriggerVariable
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
	case raw[0] == '{':
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, core.InvalidParam("variables")
		}
		for k, v := range m {
			s, ok := v.(string)
			if !ok {
				return nil, errVariablesMap
			}
			out = append(out, domain.TriggerVariable{Key: k, Value: s})
		}
	default:
		return nil, core.InvalidParam("variables")
	}
	for name, vals := range form {
		key, ok := strings.CutPrefix(name, "variables[")
		if !ok {
			continue
		}
		key, ok = strings.CutSuffix(key, "]")
		if !ok || key == "" || strings.ContainsAny(key, "[]") || len(vals) != 1 {
			return nil, errVariablesMap
		}
		out = append(out, domain.TriggerVariable{Key: key, Value: vals[0]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// POST /projects/:id/trigger/pipeline and
// POST /projects/:id/ref/:ref/trigger/pipeline: 201 with the pipeline.
// The token authenticates, not the caller.
func (h handlers) runTrigger(w http.ResponseWriter, r *http.Request) error {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return err
	}
	in, err := decodeRunTrigger(r)
	if err != nil {
		return err
	}
	p, err := h.s.RunTrigger(r.Context(), ref, in)
	if err != nil {
		return err
	}
	return h.reply(w, r, http.StatusCreated, p)
}

// lintParams is POST /ci/lint's body.
type lintParams struct {
	Content *string `param:"content"`
}

// POST /ci/lint: 200 with the verdict, for anyone (GitLab 9.x asks no
// authentication).
func (h handlers) lint(w http.ResponseWriter, r *http.Request) error {
	var in lintParams
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	res, err := h.s.Lint(r.Context(), in.Content)
	if err != nil {
		return err
	}
	return httpx.OK(w, lintOf(res))
}
