package httpx

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/hearth-forge/hearth/core"
)

// Problems collects a request's parameter problems (missing, invalid, not
// one of the allowed values) so that one GitLab 400 reports them all:
// {"error":"a is missing, b does not have a valid value"}.
type Problems []string

// Decode fills dst from r's parameters and records their problems. Other
// failures (an unreadable body) are returned.
func (p *Problems) Decode(r *http.Request, dst any) error {
	err := Decode(r, dst)
	var e *core.Error
	if errors.As(err, &e) && e.Param {
		*p = append(*p, e.Msg)
		return nil
	}
	return err
}

// OneOf is Grape's `values:` check: a given value must be one of allowed.
func (p *Problems) OneOf(name string, got *string, allowed ...string) {
	if got != nil && !slices.Contains(allowed, *got) {
		*p = append(*p, name+" does not have a valid value")
	}
}

// Add records messages.
func (p *Problems) Add(msgs ...string) { *p = append(*p, msgs...) }

// Err is the 400 reporting every problem, or nil when there is none.
func (p Problems) Err() error {
	if len(p) == 0 {
		return nil
	}
	return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: strings.Join(p, ", ")}
}

// AtLeastOneOf is Grape's at_least_one_of: unless r carries one of names,
// they are missing.
func (p *Problems) AtLeastOneOf(r *http.Request, names ...string) {
	for _, n := range names {
		if Has(r, n) {
			return
		}
	}
	*p = append(*p, strings.Join(names, ", ")+" are missing, at least one parameter must be provided")
}

// Has reports whether r carries parameter name at all.
func Has(r *http.Request, name string) bool {
	params, err := ParamsOf(r)
	return err == nil && params.Has(name)
}
