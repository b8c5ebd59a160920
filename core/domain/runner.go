package domain

import "time"

// Runner access levels: which refs' jobs a runner takes.
const (
	RunnerNotProtected = "not_protected"
	RunnerRefProtected = "ref_protected"
)

// Runner is a registered gitlab-runner (or Hearth's own). Shared runners
// take jobs of every project with shared runners enabled; specific ones
// those of the projects they are assigned to.
type Runner struct {
	ID          int64
	TokenDigest string // domain.TokenDigest of its authentication token
	Description string
	Active      bool // paused runners take no jobs
	// Locked runners may not be enabled for other projects.
	Locked      bool
	RunUntagged bool
	Tags        []string
	IsShared    bool
	// ProjectIDs are the projects a specific runner serves.
	ProjectIDs  []int64
	AccessLevel string // RunnerNotProtected or RunnerRefProtected
	// MaximumTimeout caps its jobs' timeout in seconds (0: no cap).
	MaximumTimeout int
	// What the runner says of itself (info).
	Name, Version, Revision, Platform, Architecture string
	IPAddress                                       string
	ContactedAt                                     *time.Time
	CreatedAt                                       time.Time
}

// RunnerFilter selects runners. Zero values mean no filter.
type RunnerFilter struct {
	// IDs keeps only these runners (nil: no filter): the runners a page
	// of jobs embeds, read in one query.
	IDs []int64
	// Scope: active, paused, online, specific or shared.
	Scope string
	// ProjectIDs keeps runners serving any of these projects (specific
	// runners assigned to them); OwnedBy is the same for a user's
	// projects, resolved by the caller.
	ProjectIDs []int64
	// OnlineSince: contacted at or after (for the online scope).
	OnlineSince time.Time
	Page        Page
}
