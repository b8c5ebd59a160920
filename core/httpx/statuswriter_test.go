package httpx

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// countingWriter counts the WriteHeader calls that reach net/http.
type countingWriter struct {
	*httptest.ResponseRecorder
	headers int
}

func (w *countingWriter) WriteHeader(code int) {
	w.headers++
	w.ResponseRecorder.WriteHeader(code)
}

// TestStatusWriterSendsOneStatus: once a body started, a late error's
// status never reaches net/http (it would only log a superfluous
// WriteHeader); the access log keeps the status that was sent.
func TestStatusWriterSendsOneStatus(t *testing.T) {
	under := &countingWriter{ResponseRecorder: httptest.NewRecorder()}
	w := &statusWriter{ResponseWriter: under}
	if _, err := w.Write([]byte("partial body")); err != nil {
		t.Fatal(err)
	}
	w.WriteHeader(http.StatusInternalServerError)
	if w.status != http.StatusOK || under.Code != http.StatusOK || under.headers != 0 {
		t.Fatalf("status %d, sent %d, WriteHeader calls %d; want 200, 200, 0", w.status, under.Code, under.headers)
	}

	under = &countingWriter{ResponseRecorder: httptest.NewRecorder()}
	w = &statusWriter{ResponseWriter: under}
	w.WriteHeader(http.StatusCreated)
	w.WriteHeader(http.StatusInternalServerError)
	if w.status != http.StatusCreated || under.Code != http.StatusCreated || under.headers != 1 {
		t.Fatalf("status %d, sent %d, WriteHeader calls %d; want 201, 201, 1", w.status, under.Code, under.headers)
	}
}
