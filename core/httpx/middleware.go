package httpx

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
)

type ctxKey int

const (
	loggerKey ctxKey = iota
	requestIDKey
	limitsKey
	callerKey
	baseURLKey
)

type limits struct {
	maxBody      int64
	maxJSONDepth int
}

func limitsOf(r *http.Request) limits {
	if l, ok := r.Context().Value(limitsKey).(limits); ok {
		return l
	}
	return limits{maxBody: 10 << 20, maxJSONDepth: 32}
}

// Logger is the request's logger, carrying its request ID.
func Logger(r *http.Request) *zap.Logger { return LoggerFrom(r.Context()) }

// LoggerFrom returns the logger stored in ctx, or a no-op logger.
func LoggerFrom(ctx context.Context) *zap.Logger {
	if l, ok := ctx.Value(loggerKey).(*zap.Logger); ok {
		return l
	}
	return zap.NewNop()
}

// RequestID is the request's ID (also sent as X-Request-Id).
func RequestID(r *http.Request) string { return RequestIDFrom(r.Context()) }

// RequestIDFrom is the ID of the request ctx belongs to, "" for work that
// no request started (background workers).
func RequestIDFrom(ctx context.Context) string {
	s, _ := ctx.Value(requestIDKey).(string)
	return s
}

// BaseURL is the configured external URL without a trailing slash.
func BaseURL(r *http.Request) string {
	s, _ := r.Context().Value(baseURLKey).(string)
	return s
}

func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// validRequestID accepts a client's ID only when it is short and plain, so
// it cannot forge log lines.
func validRequestID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c == '-' || c == '_' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
			return false
		}
	}
	return true
}

// statusWriter records the status and size for the access log.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

// WriteHeader sends the status once. A second call can only come from an
// error met after the body started (a client gone mid-download): the
// status is out already, so it is dropped instead of reaching net/http,
// which would log "superfluous response.WriteHeader".
func (w *statusWriter) WriteHeader(code int) {
	if w.status != 0 {
		return
	}
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach Flush and deadlines.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// secretParam reports whether a query parameter must never be logged.
func secretParam(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "token") || strings.Contains(n, "password") || strings.Contains(n, "secret")
}

// RedactedQuery is the query string with secret values replaced.
func RedactedQuery(u *url.URL) string {
	if u.RawQuery == "" {
		return ""
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return "[unparseable]"
	}
	for k := range q {
		if secretParam(k) {
			q[k] = []string{"[FILTERED]"}
		}
	}
	return q.Encode()
}

// base installs the request ID, request logger, limits, escaped routing
// path and the access log with panic recovery, and tells observe (when
// not nil) of each finished request.
func base(log *zap.Logger, opts Options, observe RequestObserver) func(http.Handler) http.Handler {
	lim := limits{maxBody: opts.MaxBodyBytes, maxJSONDepth: opts.MaxJSONDepth}
	baseURL := strings.TrimRight(opts.ExternalURL, "/")
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			id := r.Header.Get("X-Request-Id")
			if !validRequestID(id) {
				id = newRequestID()
			}
			w.Header().Set("X-Request-Id", id)
			reqLog := log.With(zap.String("request_id", id))
			ctx := context.WithValue(r.Context(), requestIDKey, id)
			ctx = context.WithValue(ctx, loggerKey, reqLog)
			ctx = context.WithValue(ctx, limitsKey, lim)
			ctx = context.WithValue(ctx, baseURLKey, baseURL)
			ctx = context.WithValue(ctx, paramsKey{}, &paramsCache{})
			// Route on the escaped path so %2F in :id and :file_path stays
			// inside one segment; handlers unescape with PathParam.
			if rctx := chi.RouteContext(ctx); rctx != nil {
				rctx.RoutePath = r.URL.EscapedPath()
			}
			sw := &statusWriter{ResponseWriter: w}
			r = r.WithContext(ctx)
			defer func() {
				if rec := recover(); rec != nil {
					if rec == http.ErrAbortHandler {
						panic(rec)
					}
					reqLog.Error("panic", zap.Any("panic", rec), zap.Stack("stack"))
					if sw.status == 0 {
						_ = JSON(sw, http.StatusInternalServerError, map[string]string{"message": "500 Internal Server Error"})
					}
				}
				fields := []zap.Field{
					zap.String("method", r.Method),
					zap.String("path", r.URL.EscapedPath()),
					zap.Int("status", sw.status),
					zap.Int64("bytes", sw.bytes),
					zap.Duration("duration", time.Since(start)),
					zap.String("remote", r.RemoteAddr),
				}
				if q := RedactedQuery(r.URL); q != "" {
					fields = append(fields, zap.String("query", q))
				}
				if c := CallerOf(r); c != nil {
					fields = append(fields, zap.Int64("user_id", c.UserID()))
				}
				reqLog.Info("request", fields...)
				if observe != nil {
					status := sw.status
					if status == 0 {
						// Nothing written: net/http sends 200.
						status = http.StatusOK
					}
					var pattern string
					if rctx := chi.RouteContext(ctx); rctx != nil {
						pattern = rctx.RoutePattern()
					}
					observe(pattern, r.Method, status, time.Since(start))
				}
			}()
			// The caller is filled in by the auth middleware; keep a slot
			// here so the access log sees it.
			slot := &callerSlot{}
			r = r.WithContext(context.WithValue(r.Context(), callerKey, slot))
			next.ServeHTTP(sw, r)
		})
	}
}

// capBody limits request bodies; reading past the cap yields 413.
func capBody(max int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength > max {
				WriteError(w, r, &core.Error{Kind: core.ErrTooLarge, Msg: "413 Request Entity Too Large"})
				return
			}
			if r.Body != nil {
				r.Body = http.MaxBytesReader(w, r.Body, max)
			}
			next.ServeHTTP(w, r)
		})
	}
}
