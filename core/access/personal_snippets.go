package access

import "github.com/hearth-forge/hearth/core/domain"

// Personal snippets belong to no project, so no Target decides on them:
// GitLab's PersonalSnippetPolicy looks at the snippet, its author and the
// caller alone. A CI job token never lends its user administrator rights.

// ReadPersonalSnippet reports whether the caller may read the personal
// snippet sn: its author and administrators always, anyone else as its
// visibility allows (internal: signed-in users who are not external).
func ReadPersonalSnippet(c *domain.Caller, sn *domain.Snippet) bool {
	return AdminPersonalSnippet(c, sn) || visibleBy(sn.Visibility, user(c))
}

// AdminPersonalSnippet reports whether the caller may change or delete
// the personal snippet sn: its author and administrators.
func AdminPersonalSnippet(c *domain.Caller, sn *domain.Snippet) bool {
	u := user(c)
	if u == nil {
		return false
	}
	return u.ID == sn.AuthorID || (u.Admin && c.Job == nil)
}

// CreatePersonalSnippet reports whether the caller may write personal
// snippets: signed-in users who are not external.
func CreatePersonalSnippet(c *domain.Caller) bool {
	u := user(c)
	return u != nil && !u.External
}
