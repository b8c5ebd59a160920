package domain

import "time"

// Visibility of a project, group or snippet.
type Visibility string

const (
	Private  Visibility = "private"
	Internal Visibility = "internal"
	Public   Visibility = "public"
)

// Valid reports whether v is one of the three levels.
func (v Visibility) Valid() bool { return v == Private || v == Internal || v == Public }

// Rank orders visibilities: private < internal < public.
func (v Visibility) Rank() int {
	switch v {
	case Public:
		return 2
	case Internal:
		return 1
	}
	return 0
}

// AccessLevel is a member's role.
type AccessLevel int

const (
	NoAccess  AccessLevel = 0
	Guest     AccessLevel = 10
	Reporter  AccessLevel = 20
	Developer AccessLevel = 30
	Master    AccessLevel = 40
	Owner     AccessLevel = 50
)

// Valid reports whether l is a level a member may hold.
func (l AccessLevel) Valid() bool {
	switch l {
	case Guest, Reporter, Developer, Master, Owner:
		return true
	}
	return false
}

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

// Import states of a project (forks are asynchronous imports).
const (
	ImportNone      = "none"
	ImportScheduled = "scheduled"
	ImportStarted   = "started"
	ImportFinished  = "finished"
	ImportFailed    = "failed"
)

// Project is a repository with its settings.
type Project struct {
	ID                                        int64
	NamespaceID                               int64
	Name                                      string
	Path                                      string
	Description                               string
	DefaultBranch                             string
	Visibility                                Visibility
	IssuesEnabled                             bool
	MergeRequestsEnabled                      bool
	JobsEnabled                               bool
	WikiEnabled                               bool
	SnippetsEnabled                           bool
	ContainerRegistryEnabled                  bool
	SharedRunnersEnabled                      bool
	PublicJobs                                bool
	OnlyAllowMergeIfPipelineSucceeds          bool
	OnlyAllowMergeIfAllDiscussionsAreResolved bool
	LFSEnabled                                bool
	RequestAccessEnabled                      bool
	PrintingMergeRequestLinkEnabled           bool
	Archived                                  bool
	CreatorID                                 int64
	ForkedFromID                              *int64
	ImportURL                                 string
	ImportStatus                              string
	ImportError                               string
	StarCount                                 int
	ForksCount                                int
	OpenIssuesCount                           int
	TagList                                   []string
	CIConfigPath                              string
	AvatarURL                                 string
	CreatedAt                                 time.Time
	UpdatedAt                                 time.Time
	LastActivityAt                            time.Time
}

// MemberSource tells what a membership is of.
type MemberSource string

const (
	MemberOfProject MemberSource = "project"
	MemberOfGroup   MemberSource = "group"
)

// Member is a user's membership of a project or group.
type Member struct {
	Source      MemberSource
	SourceID    int64
	UserID      int64
	AccessLevel AccessLevel
	ExpiresAt   *time.Time // a date; the membership ends on it
	CreatedAt   time.Time
	CreatedBy   int64
}

// Active reports whether the membership counts at now.
func (m *Member) Active(now time.Time) bool { return m.ExpiresAt == nil || now.Before(*m.ExpiresAt) }

// ProjectShare gives a group's members access to a project, capped at GroupAccess.
type ProjectShare struct {
	ProjectID   int64
	GroupID     int64
	GroupAccess AccessLevel
	ExpiresAt   *time.Time
	CreatedAt   time.Time
}

// ProjectOrder names the orderings of project lists.
type ProjectOrder string

const (
	OrderByID             ProjectOrder = "id"
	OrderByName           ProjectOrder = "name"
	OrderByPath           ProjectOrder = "path"
	OrderByCreatedAt      ProjectOrder = "created_at"
	OrderByUpdatedAt      ProjectOrder = "updated_at"
	OrderByLastActivityAt ProjectOrder = "last_activity_at"
)

// ProjectFilter selects projects. Readable is always applied: lists never
// show what the reader may not read. Zero values mean "no filter".
type ProjectFilter struct {
	Readable ReadScope
	// NamespaceIDs limits to projects directly in these namespaces.
	NamespaceIDs []int64
	// OnlyIDs limits to these projects (membership, owned, shared lists).
	OnlyIDs    []int64
	OnlyIDsSet bool // OnlyIDs applies even when empty
	StarredBy  int64
	Archived   *bool
	Visibility Visibility
	Search     string // name, path or description, case-insensitive substring
	// WithIssuesEnabled and WithMergeRequestsEnabled keep projects with the feature on.
	WithIssuesEnabled        bool
	WithMergeRequestsEnabled bool
	OrderBy                  ProjectOrder
	Ascending                bool
	Page                     Page
}

// ReadScope is what a reader may see, in a form a store can turn into one
// query: everything (administrators), or public projects, internal ones
// when Internal, plus the listed projects and every project in the listed
// namespaces.
type ReadScope struct {
	All          bool
	Internal     bool
	ProjectIDs   []int64
	NamespaceIDs []int64
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
