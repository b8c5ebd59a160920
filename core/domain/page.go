package domain

// Page is a 1-based page request. PerPage <= 0 means every row.
type Page struct {
	Page    int
	PerPage int
}

// Offset is the number of rows before the page.
func (p Page) Offset() int {
	if p.Page < 1 {
		return 0
	}
	return (p.Page - 1) * p.PerPage
}

// IDOrPath names a project, group or user as GitLab's :id parameters do:
// by numeric ID, or by full path ("group/sub/project") when Path is set.
type IDOrPath struct {
	ID   int64
	Path string
}

// IsID reports whether the reference is numeric.
func (r IDOrPath) IsID() bool { return r.Path == "" }
