package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core"
)

// Params are a request's parameters from the query string, form fields,
// multipart fields and a JSON body, merged: GitLab treats them alike.
// Later sources win: query, then body.
type Params struct {
	values map[string][]string
	raw    map[string]json.RawMessage
}

// Get returns the first value of name and whether it was given.
func (p *Params) Get(name string) (string, bool) {
	v, ok := p.values[name]
	if !ok || len(v) == 0 {
		return "", ok
	}
	return v[0], true
}

// Has reports whether name was given at all.
func (p *Params) Has(name string) bool {
	_, ok := p.values[name]
	if !ok {
		_, ok = p.raw[name]
	}
	return ok
}

// Values returns a copy of the scalar parameters, for building links.
func (p *Params) Values() url.Values {
	out := url.Values{}
	for k, v := range p.values {
		out[k] = append([]string(nil), v...)
	}
	return out
}

type paramsKey struct{}

type paramsCache struct {
	p   *Params
	err error
}

// ParamsOf parses the request's parameters once and caches them.
func ParamsOf(r *http.Request) (*Params, error) {
	c, _ := r.Context().Value(paramsKey{}).(*paramsCache)
	if c != nil && (c.p != nil || c.err != nil) {
		return c.p, c.err
	}
	p, err := parseParams(r, limitsOf(r).maxJSONDepth)
	if c != nil {
		c.p, c.err = p, err
	}
	return p, err
}

func parseParams(r *http.Request, maxDepth int) (*Params, error) {
	p := &Params{values: map[string][]string{}, raw: map[string]json.RawMessage{}}
	add := func(vals url.Values) {
		for k, v := range vals {
			k = strings.TrimSuffix(k, "[]")
			p.values[k] = append(p.values[k], v...)
		}
	}
	add(r.URL.Query())
	if r.Body == nil || r.Method == http.MethodGet || r.Method == http.MethodHead {
		return p, nil
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/x-www-form-urlencoded":
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, bodyError(err)
		}
		vals, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, core.BadRequest("400 Bad request - malformed form body")
		}
		overlay(p, vals, add)
	case "multipart/form-data":
		if err := r.ParseMultipartForm(limitsOf(r).maxBody); err != nil {
			if e := bodyError(err); errors.Is(e, core.ErrTooLarge) {
				return nil, e
			}
			return nil, core.BadRequest("400 Bad request - malformed multipart body")
		}
		overlay(p, url.Values(r.MultipartForm.Value), add)
	case "application/json":
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, bodyError(err)
		}
		if len(bytes.TrimSpace(body)) == 0 {
			return p, nil
		}
		if err := checkJSONDepth(body, maxDepth); err != nil {
			return nil, err
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(body, &obj); err != nil {
			return nil, core.BadRequest("400 Bad request - body is not a JSON object")
		}
		for k, v := range obj {
			k = strings.TrimSuffix(k, "[]")
			delete(p.values, k)
			p.raw[k] = v
			if s, ok := jsonScalars(v); ok {
				p.values[k] = s
			}
		}
	}
	return p, nil
}

// overlay makes body values replace query values of the same name.
func overlay(p *Params, vals url.Values, add func(url.Values)) {
	for k := range vals {
		delete(p.values, strings.TrimSuffix(k, "[]"))
	}
	add(vals)
}

func bodyError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &core.Error{Kind: core.ErrTooLarge, Msg: "413 Request Entity Too Large"}
	}
	return core.Wrap(core.ErrInvalid, "400 Bad request - unreadable body", err)
}

// jsonScalars turns a JSON scalar or array of scalars into strings.
func jsonScalars(v json.RawMessage) ([]string, bool) {
	var any_ any
	if err := json.Unmarshal(v, &any_); err != nil {
		return nil, false
	}
	scalar := func(x any) (string, bool) {
		switch t := x.(type) {
		case string:
			return t, true
		case bool:
			return strconv.FormatBool(t), true
		case float64:
			return strconv.FormatFloat(t, 'f', -1, 64), true
		case nil:
			return "", true
		}
		return "", false
	}
	if arr, ok := any_.([]any); ok {
		out := make([]string, 0, len(arr))
		for _, x := range arr {
			s, ok := scalar(x)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	if s, ok := scalar(any_); ok {
		if any_ == nil {
			return []string{}, true
		}
		return []string{s}, true
	}
	return nil, false
}

// checkJSONDepth rejects documents nested deeper than max without building them.
func checkJSONDepth(body []byte, max int) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	depth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return core.BadRequest("400 Bad request - malformed JSON body")
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
			if depth > max {
				return core.BadRequest("400 Bad request - JSON nested too deeply")
			}
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

// Decode fills the struct dst from the request's parameters. Fields are
// named by a `param:"name"` tag; ",required" makes absence an error;
// text holding a NUL byte is invalid unless tagged ",nul". Pointer
// fields stay nil when absent. Supported: string, bool, int, int64,
// float64, time.Time (ISO 8601 or YYYY-MM-DD), []string, []int64, and any
// type decoded from a raw JSON value. Failures are 400s in GitLab's
// {"error":"x is missing, y is invalid"} shape.
func Decode(r *http.Request, dst any) error {
	p, err := ParamsOf(r)
	if err != nil {
		return err
	}
	return p.Decode(dst)
}

// Decode fills dst; see the package-level Decode.
func (p *Params) Decode(dst any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("httpx.Decode: want pointer to struct, got %T", dst)
	}
	rv = rv.Elem()
	rt := rv.Type()
	var missing, invalid []string
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		tag := f.Tag.Get("param")
		if tag == "" || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		required := slices.Contains(strings.Split(opts, ","), "required")
		nulOK := slices.Contains(strings.Split(opts, ","), "nul")
		fv := rv.Field(i)
		vals, hasVals := p.values[name]
		rawJSON, hasRaw := p.raw[name]
		if !hasVals && !hasRaw {
			if required {
				missing = append(missing, name)
			}
			continue
		}
		if hasVals && blankScalar(fv.Type(), vals) {
			// JSON null or an empty form value for a number, boolean or
			// time: Grape coerces it to nil, which GitLab reads as "none"
			// (an id of 0 unassigns a milestone or an assignee) rather
			// than as a malformed value.
			if required {
				missing = append(missing, name)
				continue
			}
			setBlank(fv)
			continue
		}
		if err := setField(fv, vals, hasVals, rawJSON, hasRaw); err != nil || (!nulOK && hasNUL(fv)) {
			invalid = append(invalid, name)
			continue
		}
		if required && fv.Kind() == reflect.String && strings.TrimSpace(fv.String()) == "" {
			missing = append(missing, name)
		}
	}
	msgs := make([]string, 0, len(missing)+len(invalid))
	for _, m := range missing {
		msgs = append(msgs, m+" is missing")
	}
	for _, m := range invalid {
		msgs = append(msgs, m+" is invalid")
	}
	if len(msgs) > 0 {
		return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: strings.Join(msgs, ", ")}
	}
	return nil
}

var timeType = reflect.TypeOf(time.Time{})

// blankScalar reports whether vals is JSON null or one blank value and t
// (or what it points to) is a number, boolean or time.
func blankScalar(t reflect.Type, vals []string) bool {
	if len(vals) > 1 || len(vals) == 1 && strings.TrimSpace(vals[0]) != "" {
		return false
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int32, reflect.Int64, reflect.Float64:
		return true
	}
	return t == timeType
}

// setBlank gives a blank parameter its "none": a pointer to 0 for an
// integer (GitLab's "0 or empty" for no milestone, no assignee), nil for
// other pointers, the zero value otherwise.
func setBlank(fv reflect.Value) {
	if fv.Kind() != reflect.Pointer {
		fv.SetZero()
		return
	}
	switch fv.Type().Elem().Kind() {
	case reflect.Int, reflect.Int32, reflect.Int64:
		fv.Set(reflect.New(fv.Type().Elem()))
	default:
		fv.SetZero()
	}
}

func setField(fv reflect.Value, vals []string, hasVals bool, raw json.RawMessage, hasRaw bool) error {
	if fv.Kind() == reflect.Pointer {
		elem := reflect.New(fv.Type().Elem())
		if err := setField(elem.Elem(), vals, hasVals, raw, hasRaw); err != nil {
			return err
		}
		fv.Set(elem)
		return nil
	}
	if !hasVals {
		// Only a structured JSON value: decode it directly.
		return json.Unmarshal(raw, fv.Addr().Interface())
	}
	first := ""
	if len(vals) > 0 {
		first = vals[0]
	}
	switch {
	case fv.Type() == timeType:
		t, err := ParseTime(first)
		if err != nil {
			return err
		}
		fv.Set(reflect.ValueOf(t))
		return nil
	case fv.Kind() == reflect.Slice:
		items := splitList(vals)
		out := reflect.MakeSlice(fv.Type(), 0, len(items))
		for _, s := range items {
			ev := reflect.New(fv.Type().Elem()).Elem()
			if err := setScalar(ev, s); err != nil {
				return err
			}
			out = reflect.Append(out, ev)
		}
		fv.Set(out)
		return nil
	}
	return setScalar(fv, first)
}

// splitList accepts x[]=a&x[]=b, JSON arrays and comma lists alike.
func splitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// hasNUL reports whether a decoded text field (or list of them) holds a
// NUL byte: no database stores one in text and no GitLab parameter needs
// one, so Decode refuses it unless the field is tagged ",nul" (its handler
// validates the value itself, as ref names do with git's rules).
func hasNUL(fv reflect.Value) bool {
	if fv.Kind() == reflect.Pointer {
		return !fv.IsNil() && hasNUL(fv.Elem())
	}
	switch fv.Kind() {
	case reflect.String:
		return strings.ContainsRune(fv.String(), 0)
	case reflect.Slice:
		if fv.Type().Elem().Kind() == reflect.String {
			for i := 0; i < fv.Len(); i++ {
				if strings.ContainsRune(fv.Index(i).String(), 0) {
					return true
				}
			}
		}
	}
	return false
}

func setScalar(fv reflect.Value, s string) error {
	switch fv.Kind() {
	case reflect.String:
		fv.SetString(s)
	case reflect.Bool:
		b, err := ParseBool(s)
		if err != nil {
			return err
		}
		fv.SetBool(b)
	case reflect.Int, reflect.Int64, reflect.Int32:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || fv.OverflowInt(n) {
			return errors.New("not an integer")
		}
		fv.SetInt(n)
	case reflect.Float64:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return err
		}
		fv.SetFloat(f)
	default:
		return fmt.Errorf("unsupported parameter type %s", fv.Type())
	}
	return nil
}

// ParseBool accepts GitLab's true/false/1/0 (and t/f, yes/no).
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1", "t", "yes":
		return true, nil
	case "false", "0", "f", "no":
		return false, nil
	}
	return false, errors.New("not a boolean")
}

// ParseTime accepts ISO 8601 timestamps and YYYY-MM-DD dates (UTC midnight).
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05", "2006-01-02 15:04:05", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, errors.New("not a time")
}
