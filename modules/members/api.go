package members

import (
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/httpx"
)

// memberJSON is GitLab 9.x's Member entity: the user (brief) with the
// membership's access level and expiry date.
type memberJSON struct {
	apijson.UserBasic
	AccessLevel int         `json:"access_level"`
	ExpiresAt   *httpx.Date `json:"expires_at"`
}

func memberOf(base string, e *Entry) memberJSON {
	return memberJSON{
		UserBasic:   apijson.UserBasicOf(base, &e.User),
		AccessLevel: int(e.Member.AccessLevel),
		ExpiresAt:   httpx.DatePtr(e.Member.ExpiresAt),
	}
}

func membersOf(base string, entries []Entry) []memberJSON {
	out := make([]memberJSON, len(entries))
	for i := range entries {
		out[i] = memberOf(base, &entries[i])
	}
	return out
}

// listParams are the list parameters; GitLab 9.x names the search `query`.
type listParams struct {
	Query string `param:"query"`
}

// addParams are POST .../members.
type addParams struct {
	UserID      int64   `param:"user_id,required"`
	AccessLevel int     `param:"access_level,required"`
	ExpiresAt   *string `param:"expires_at"`
}

// updateParams are PUT .../members/:user_id.
type updateParams struct {
	AccessLevel int     `param:"access_level,required"`
	ExpiresAt   *string `param:"expires_at"`
}
