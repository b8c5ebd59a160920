package ci

import (
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/httpx"
)

// triggerJSON is GitLab 9.x's Trigger entity. token is whole only in the
// create answer (Hearth keeps a digest); deleted_at is always null, as
// deleted triggers are gone.
type triggerJSON struct {
	ID          int64              `json:"id"`
	Token       string             `json:"token"`
	Description string             `json:"description"`
	CreatedAt   httpx.Time         `json:"created_at"`
	UpdatedAt   httpx.Time         `json:"updated_at"`
	DeletedAt   *httpx.Time        `json:"deleted_at"`
	LastUsed    *httpx.Time        `json:"last_used"`
	Owner       *apijson.UserBasic `json:"owner"`
}

func triggerOf(base string, t *Trigger) triggerJSON {
	out := triggerJSON{ID: t.ID, Token: t.Token, Description: t.Description,
		CreatedAt: httpx.TimeOf(t.CreatedAt), UpdatedAt: httpx.TimeOf(t.UpdatedAt), LastUsed: httpx.TimePtr(t.LastUsedAt)}
	if t.Owner != nil {
		u := apijson.UserBasicOf(base, t.Owner)
		out.Owner = &u
	}
	return out
}

// lintJSON is POST /ci/lint's answer.
type lintJSON struct {
	Status string   `json:"status"`
	Errors []string `json:"errors"`
}

func lintOf(r *LintResult) lintJSON {
	if r.Valid {
		return lintJSON{Status: "valid", Errors: []string{}}
	}
	return lintJSON{Status: "invalid", Errors: r.Errors}
}
