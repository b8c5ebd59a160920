package httpx

import (
	"errors"
	"net/http"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
)

var kindStatus = []struct {
	kind   error
	status int
	msg    string
}{
	{core.ErrNotModified, http.StatusNotModified, ""},
	{core.ErrNotFound, http.StatusNotFound, "404 Not Found"},
	{core.ErrInvalid, http.StatusBadRequest, "400 Bad request"},
	{core.ErrUnauthenticated, http.StatusUnauthorized, "401 Unauthorized"},
	{core.ErrForbidden, http.StatusForbidden, "403 Forbidden"},
	{core.ErrConflict, http.StatusConflict, "409 Conflict"},
	{core.ErrStale, http.StatusConflict, "409 Conflict"},
	{core.ErrNotAllowed, http.StatusMethodNotAllowed, "405 Method Not Allowed"},
	{core.ErrNotAcceptable, http.StatusNotAcceptable, "406 Not Acceptable"},
	{core.ErrTooLarge, http.StatusRequestEntityTooLarge, "413 Request Entity Too Large"},
	{core.ErrUnprocessable, http.StatusUnprocessableEntity, "422 Unprocessable Entity"},
	{core.ErrUnavailable, http.StatusServiceUnavailable, "503 Service Unavailable"},
}

// RetryAfter is the Retry-After (seconds) of every 503: capacity frees
// within moments (a queued request waits about that long), so clients
// should come back soon rather than back off for long.
const RetryAfter = "1"

// StatusOf maps an error to its HTTP status (500 for unknown errors).
func StatusOf(err error) int {
	for _, k := range kindStatus {
		if errors.Is(err, k.kind) {
			return k.status
		}
	}
	return http.StatusInternalServerError
}

// WriteError renders err in GitLab's shape. Unexpected errors are logged with
// the request ID and answered with a bare 500.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	status := StatusOf(err)
	if status == http.StatusNotModified {
		w.WriteHeader(status)
		return
	}
	if status == http.StatusServiceUnavailable {
		// Not logged: under overload a line per refusal would add to it.
		w.Header().Set("Retry-After", RetryAfter)
	}
	if status == http.StatusInternalServerError {
		Logger(r).Error("request failed", zap.Error(err))
		_ = JSON(w, status, map[string]string{"message": "500 Internal Server Error"})
		return
	}
	var e *core.Error
	if errors.As(err, &e) {
		switch {
		case len(e.Fields) > 0:
			_ = JSON(w, status, map[string]any{"message": e.Fields})
			return
		case e.Param:
			_ = JSON(w, status, map[string]string{"error": e.Msg})
			return
		case e.Msg != "":
			_ = JSON(w, status, map[string]string{"message": e.Msg})
			return
		}
	}
	for _, k := range kindStatus {
		if k.status == status {
			_ = JSON(w, status, map[string]string{"message": k.msg})
			return
		}
	}
}

// adapt turns a HandlerFunc into an http.HandlerFunc that renders errors.
func adapt(h HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			WriteError(w, r, err)
		}
	}
}
