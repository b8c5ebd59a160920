package domain

import "time"

// NamespaceKind tells user namespaces from groups.
type NamespaceKind string

const (
	NamespaceUser  NamespaceKind = "user"
	NamespaceGroup NamespaceKind = "group"
)

// Namespace holds projects: a user's personal namespace or a group.
// Groups nest through ParentID; FullPath is the slash-joined path from the top.
type Namespace struct {
	ID       int64
	Kind     NamespaceKind
	Name     string
	Path     string
	FullPath string
	ParentID *int64
	// OwnerID is the user of a personal namespace.
	OwnerID              *int64
	Description          string
	Visibility           Visibility
	LFSEnabled           bool
	RequestAccessEnabled bool
	AvatarURL            string
	CreatedAt            time.Time
	UpdatedAt            time.Time
}

// GroupFilter selects groups; Readable works as for projects, with
// GroupIDs the groups the reader may see whatever their visibility.
type GroupFilter struct {
	All        bool // administrators: no visibility limit
	Internal   bool
	GroupIDs   []int64
	OnlyIDs    []int64 // owned or membership lists
	OnlyIDsSet bool
	SkipIDs    []int64
	ParentID   *int64 // nil: any level
	TopLevel   bool
	Search     string // name or path
	OrderBy    string // name (default) or path
	Ascending  bool
	Page       Page
}
