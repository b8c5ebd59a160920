package netguard

import "github.com/hearth-forge/hearth/core"

// BlockedError is a hook URL or delivery address refused by the guard.
// Error returns Reason alone, which is GitLab's UrlBlocker message, so it
// can be shown to API clients unchanged.
type BlockedError struct {
	// URL is the hook URL checked at creation; empty for a dial refusal.
	URL string
	// Addr is the "ip:port" refused at dial time; empty at creation.
	Addr string
	// Reason is one of the Msg* texts.
	Reason string
}

func (e *BlockedError) Error() string { return e.Reason }

// Validation is the error a hook endpoint returns for e: GitLab's 422
// {"message":{"url":["is blocked: <reason>"]}}, with e as its cause.
func (e *BlockedError) Validation() error {
	return &core.Error{
		Kind:   core.ErrUnprocessable,
		Fields: map[string][]string{"url": {"is blocked: " + e.Reason}},
		Err:    e,
	}
}
