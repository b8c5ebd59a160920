package repository

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/core"
)

// TestGitFailureBusy: a git client turned away because the backend is at
// capacity gets a 503 it can retry after a second, in plain text.
func TestGitFailureBusy(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/g/p.git/git-upload-pack", nil)
	err := core.Unavailable(errors.New("all git process slots busy"))
	if gitFailure(rec, req, nil, "upload-pack", err) != nil {
		t.Fatal("writing the answer failed")
	}
	if rec.Code != 503 || rec.Header().Get("Retry-After") != "1" || strings.TrimSpace(rec.Body.String()) != "503 Service Unavailable" {
		t.Fatalf("busy backend: %d Retry-After %q %q", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
}
