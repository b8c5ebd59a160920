package core

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Error kinds. Compare with errors.Is; never match on message text.
var (
	ErrNotFound        = errors.New("not found")
	ErrConflict        = errors.New("conflict")
	ErrInvalid         = errors.New("invalid")
	ErrUnauthenticated = errors.New("unauthenticated")
	ErrForbidden       = errors.New("forbidden")
	ErrStale           = errors.New("stale")
	ErrNotAllowed      = errors.New("not allowed")
	ErrNotAcceptable   = errors.New("not acceptable")
	ErrTooLarge        = errors.New("too large")
	ErrNotModified     = errors.New("not modified")
	// ErrUnprocessable is a well-formed request the model refuses (GitLab's
	// 422, e.g. a merge request from a branch into itself).
	ErrUnprocessable = errors.New("unprocessable")
	// ErrUnavailable is a request turned away because the server is at
	// capacity (GitLab's 503); the client may retry shortly.
	ErrUnavailable = errors.New("unavailable")
	ErrInternal    = errors.New("internal")
)

// Error is an error of one kind with the message a client may see.
// Fields carries model-validation errors (field -> messages); when set the
// error renders as GitLab's {"message":{"field":["..."]}} shape.
type Error struct {
	Kind   error
	Msg    string
	Fields map[string][]string
	// Param marks request-validation errors rendered as {"error": Msg}.
	Param bool
	Err   error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Kind.Error())
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	if len(e.Fields) > 0 {
		keys := make([]string, 0, len(e.Fields))
		for k := range e.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, " %s %s;", k, strings.Join(e.Fields[k], ", "))
		}
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Is reports whether target is this error's kind.
func (e *Error) Is(target error) bool { return target == e.Kind }

func (e *Error) Unwrap() error { return e.Err }

// NotFound is GitLab's "404 <What> Not Found".
func NotFound(what string) error {
	return &Error{Kind: ErrNotFound, Msg: "404 " + what + " Not Found"}
}

// MissingParam is a request-validation error: "<name> is missing".
func MissingParam(names ...string) error {
	msgs := make([]string, len(names))
	for i, n := range names {
		msgs[i] = n + " is missing"
	}
	return &Error{Kind: ErrInvalid, Param: true, Msg: strings.Join(msgs, ", ")}
}

// InvalidParam is a request-validation error: "<name> is invalid".
func InvalidParam(name string) error {
	return &Error{Kind: ErrInvalid, Param: true, Msg: name + " is invalid"}
}

// BadRequest is a 400 with a plain message ({"message": msg}).
func BadRequest(msg string) error { return &Error{Kind: ErrInvalid, Msg: msg} }

// Validation is a model-validation failure: {"message":{"field":["error"]}}.
func Validation(fields map[string][]string) error {
	return &Error{Kind: ErrInvalid, Fields: fields}
}

// FieldInvalid is Validation with one field and one message.
func FieldInvalid(field, msg string) error {
	return Validation(map[string][]string{field: {msg}})
}

// Conflict is a 409 with an explanation.
func Conflict(msg string) error { return &Error{Kind: ErrConflict, Msg: msg} }

// Forbidden is a 403; a non-empty reason renders "403 Forbidden - <reason>".
func Forbidden(reason string) error {
	msg := "403 Forbidden"
	if reason != "" {
		msg += " - " + reason
	}
	return &Error{Kind: ErrForbidden, Msg: msg}
}

// Unauthenticated is a 401.
func Unauthenticated() error { return &Error{Kind: ErrUnauthenticated, Msg: "401 Unauthorized"} }

// NotAllowed is a 405 with an explanation.
func NotAllowed(msg string) error { return &Error{Kind: ErrNotAllowed, Msg: msg} }

// Unprocessable is a 422 with an explanation.
func Unprocessable(msg string) error { return &Error{Kind: ErrUnprocessable, Msg: msg} }

// NotAcceptable is a 406 with an explanation.
func NotAcceptable(msg string) error { return &Error{Kind: ErrNotAcceptable, Msg: msg} }

// Unavailable is a 503: the server is too busy for the request right now;
// cause says what ran out (kept for logs, not shown to the client).
func Unavailable(cause error) error {
	return &Error{Kind: ErrUnavailable, Msg: "503 Service Unavailable", Err: cause}
}

// Wrap gives err a kind while keeping it as the cause.
func Wrap(kind error, msg string, err error) error { return &Error{Kind: kind, Msg: msg, Err: err} }

// Fields returns the model-validation fields of err, if any.
func Fields(err error) map[string][]string {
	var e *Error
	if errors.As(err, &e) {
		return e.Fields
	}
	return nil
}

// StoreError maps a store's ErrNotFound to GitLab's "404 <what> Not Found"
// and wraps any other error with what the caller was doing (when doing is
// not empty); nil stays nil. Use cases call it on every store read that
// names a thing the client asked for.
func StoreError(err error, what, doing string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNotFound):
		return NotFound(what)
	case doing == "":
		return err
	}
	return fmt.Errorf("%s: %w", doing, err)
}

// FieldErrors collects model-validation messages per field, as GitLab
// answers them in a 400 {"message": {"field": ["msg"]}}.
type FieldErrors map[string][]string

// Add records msgs for field (nothing when msgs is empty).
func (f FieldErrors) Add(field string, msgs ...string) {
	if len(msgs) > 0 {
		f[field] = append(f[field], msgs...)
	}
}

// Err is the 400 of the collected messages, nil when there are none.
func (f FieldErrors) Err() error {
	if len(f) == 0 {
		return nil
	}
	return Validation(f)
}
