package httpx

import (
	"encoding/json"
	"net/http"
	"time"
)

// JSON writes v with exactly "application/json" (python-gitlab compares the header).
func JSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, err = w.Write(b)
	return err
}

// OK writes v with 200.
func OK(w http.ResponseWriter, v any) error { return JSON(w, http.StatusOK, v) }

// Created writes v with 201.
func Created(w http.ResponseWriter, v any) error { return JSON(w, http.StatusCreated, v) }

// Text writes plain text (raw files, snippet raw, traces).
func Text(w http.ResponseWriter, status int, body []byte) error {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(status)
	_, err := w.Write(body)
	return err
}

// NoContent writes 204.
func NoContent(w http.ResponseWriter) error {
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// Time renders as GitLab's timestamp: ISO 8601 in UTC with milliseconds and Z.
type Time struct{ time.Time }

const timeLayout = "2006-01-02T15:04:05.000Z"

func (t Time) MarshalJSON() ([]byte, error) {
	return []byte(`"` + t.UTC().Format(timeLayout) + `"`), nil
}

// TimeOf wraps t.
func TimeOf(t time.Time) Time { return Time{t} }

// TimePtr wraps a nullable time; nil stays nil (rendered null).
func TimePtr(t *time.Time) *Time {
	if t == nil {
		return nil
	}
	return &Time{*t}
}

// Date renders as YYYY-MM-DD.
type Date struct{ time.Time }

func (d Date) MarshalJSON() ([]byte, error) {
	return []byte(`"` + d.UTC().Format(time.DateOnly) + `"`), nil
}

// DatePtr wraps a nullable date; nil stays nil (rendered null).
func DatePtr(t *time.Time) *Date {
	if t == nil {
		return nil
	}
	return &Date{*t}
}
