package domain

import "time"

// ProjectCreated, ProjectUpdated and ProjectDestroyed feed the events module.
type ProjectCreated struct {
	Project Project
	Actor   int64
}

func (ProjectCreated) EventName() string { return "project.created" }

type ProjectUpdated struct {
	Project Project
	// Before is the project as it was, so that subscribers see a rename
	// (a new Path) and the old path_with_namespace.
	Before Project
	Actor  int64
}

func (ProjectUpdated) EventName() string { return "project.updated" }

type ProjectDestroyed struct {
	Project Project
	Actor   int64
}

func (ProjectDestroyed) EventName() string { return "project.destroyed" }

// ProjectTransferred is published inside the transaction that moved a
// project to another namespace; Before is the project as it was (its old
// NamespaceID). The feed records nothing for it, as GitLab does not.
type ProjectTransferred struct {
	Project Project
	Before  Project
	Actor   int64
}

func (ProjectTransferred) EventName() string { return "project.transferred" }

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
