// Package apijson holds the GitLab v4 JSON entities that several modules
// render (a brief user in every author field, projects in project and group
// responses), with the presenters that load what they embed in a constant
// number of queries. Entities used by one module stay in that module.
package apijson

import (
	"github.com/hearth-forge/hearth/core/domain"
)

// UserBasic is GitLab's "User (brief)".
type UserBasic struct {
	ID        int64   `json:"id"`
	Name      string  `json:"name"`
	Username  string  `json:"username"`
	State     string  `json:"state"`
	AvatarURL *string `json:"avatar_url"`
	WebURL    string  `json:"web_url"`
}

// UserState is the state clients see: directory blocks show as blocked.
func UserState(u *domain.User) string {
	if u.State == domain.UserActive {
		return string(domain.UserActive)
	}
	return string(domain.UserBlocked)
}

// NullString renders "" as null.
func NullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// UserBasicOf renders u; base is the external URL without a trailing slash.
func UserBasicOf(base string, u *domain.User) UserBasic {
	return UserBasic{
		ID:        u.ID,
		Name:      u.Name,
		Username:  u.Username,
		State:     UserState(u),
		AvatarURL: NullString(u.AvatarURL),
		WebURL:    base + "/" + u.Username,
	}
}
