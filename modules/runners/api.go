package runners

import (
	"time"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// RunnerInfo is what a runner says of itself (the info parameter).
type RunnerInfo struct {
	Name         string         `json:"name"`
	Version      string         `json:"version"`
	Revision     string         `json:"revision"`
	Platform     string         `json:"platform"`
	Architecture string         `json:"architecture"`
	Executor     string         `json:"executor"`
	Shell        string         `json:"shell"`
	Features     map[string]any `json:"features"`
}

func (i RunnerInfo) apply(r *domain.Runner) {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = clip(v, 255)
		}
	}
	set(&r.Name, i.Name)
	set(&r.Version, i.Version)
	set(&r.Revision, i.Revision)
	set(&r.Platform, i.Platform)
	set(&r.Architecture, i.Architecture)
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// RegisterInput is POST /runners.
type RegisterInput struct {
	Token          string     `param:"token"`
	Description    *string    `param:"description"`
	TagList        []string   `param:"tag_list"`
	RunUntagged    *bool      `param:"run_untagged"`
	Locked         *bool      `param:"locked"`
	AccessLevel    *string    `param:"access_level"`
	MaximumTimeout *int       `param:"maximum_timeout"`
	Active         *bool      `param:"active"`
	Paused         *bool      `param:"paused"`
	Info           RunnerInfo `param:"info"`
	IP             string     `param:"-"`
}

// RunnerTokenInput is a runner-scoped call's body (verify, unregister,
// jobs/request).
type RunnerTokenInput struct {
	Token      string     `param:"token"`
	SystemID   string     `param:"system_id"`
	LastUpdate string     `param:"last_update"`
	Info       RunnerInfo `param:"info"`
}

// UpdateJobInput is PUT /jobs/:id.
type UpdateJobInput struct {
	Token         string `param:"token"`
	State         string `param:"state"`
	FailureReason string `param:"failure_reason"`
	ExitCode      *int   `param:"exit_code"`
	// Trace is the whole trace, as runners before the PATCH endpoint sent it.
	Trace *string `param:"trace,nul"`
}

// registered is the answer of POST /runners and /runners/verify.
type registered struct {
	ID             int64   `json:"id"`
	Token          string  `json:"token"`
	TokenExpiresAt *string `json:"token_expires_at"`
}

// runnerJSON is GitLab's Runner entity.
type runnerJSON struct {
	ID          int64   `json:"id"`
	Description string  `json:"description"`
	IPAddress   *string `json:"ip_address"`
	Active      bool    `json:"active"`
	IsShared    bool    `json:"is_shared"`
	Name        *string `json:"name"`
	Online      bool    `json:"online"`
	Status      string  `json:"status"`
}

// runnerDetailsJSON is GitLab's RunnerDetails entity. The token is never
// shown: only its digest is kept.
type runnerDetailsJSON struct {
	runnerJSON
	TagList        []string            `json:"tag_list"`
	RunUntagged    bool                `json:"run_untagged"`
	Locked         bool                `json:"locked"`
	MaximumTimeout *int                `json:"maximum_timeout"`
	AccessLevel    string              `json:"access_level"`
	Version        *string             `json:"version"`
	Revision       *string             `json:"revision"`
	Platform       *string             `json:"platform"`
	Architecture   *string             `json:"architecture"`
	ContactedAt    *httpx.Time         `json:"contacted_at"`
	Projects       []runnerProjectJSON `json:"projects"`
}

type runnerProjectJSON struct {
	ID                int64  `json:"id"`
	Name              string `json:"name"`
	NameWithNamespace string `json:"name_with_namespace"`
	Path              string `json:"path"`
	PathWithNamespace string `json:"path_with_namespace"`
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// runnerStatus is GitLab's Ci::Runner#status.
func runnerStatus(r *domain.Runner, now time.Time) (online bool, status string) {
	online = r.ContactedAt != nil && r.ContactedAt.After(now.Add(-onlineWithin))
	switch {
	case r.ContactedAt == nil:
		status = "not_connected"
	case !r.Active:
		status = "paused"
	case online:
		status = "online"
	default:
		status = "offline"
	}
	return online, status
}

func runnerOf(r *domain.Runner, now time.Time) runnerJSON {
	online, status := runnerStatus(r, now)
	return runnerJSON{
		ID: r.ID, Description: r.Description, IPAddress: strOrNil(r.IPAddress), Active: r.Active,
		IsShared: r.IsShared, Name: strOrNil(r.Name), Online: online, Status: status,
	}
}

func runnersOf(list []domain.Runner, now time.Time) []runnerJSON {
	out := make([]runnerJSON, len(list))
	for i := range list {
		out[i] = runnerOf(&list[i], now)
	}
	return out
}

// RunnerProject is a project a runner serves, as the caller may see it.
type RunnerProject struct {
	Project  domain.Project
	FullPath string
	FullName string
}

// RunnerDetails is a runner with the projects shown with it.
type RunnerDetails struct {
	Runner   *domain.Runner
	Projects []RunnerProject
}

func detailsOf(d *RunnerDetails, now time.Time) runnerDetailsJSON {
	r := d.Runner
	out := runnerDetailsJSON{
		runnerJSON:   runnerOf(r, now),
		TagList:      append([]string{}, r.Tags...),
		RunUntagged:  r.RunUntagged,
		Locked:       r.Locked,
		AccessLevel:  r.AccessLevel,
		Version:      strOrNil(r.Version),
		Revision:     strOrNil(r.Revision),
		Platform:     strOrNil(r.Platform),
		Architecture: strOrNil(r.Architecture),
		ContactedAt:  httpx.TimePtr(r.ContactedAt),
		Projects:     []runnerProjectJSON{},
	}
	if r.MaximumTimeout > 0 {
		mt := r.MaximumTimeout
		out.MaximumTimeout = &mt
	}
	if out.AccessLevel == "" {
		out.AccessLevel = domain.RunnerNotProtected
	}
	for _, p := range d.Projects {
		out.Projects = append(out.Projects, runnerProjectJSON{
			ID: p.Project.ID, Name: p.Project.Name, NameWithNamespace: p.FullName,
			Path: p.Project.Path, PathWithNamespace: p.FullPath,
		})
	}
	return out
}

// UpdateRunnerInput is PUT /runners/:id.
type UpdateRunnerInput struct {
	Description    *string   `param:"description"`
	Active         *bool     `param:"active"`
	Paused         *bool     `param:"paused"`
	TagList        *[]string `param:"tag_list"`
	RunUntagged    *bool     `param:"run_untagged"`
	Locked         *bool     `param:"locked"`
	AccessLevel    *string   `param:"access_level"`
	MaximumTimeout *int      `param:"maximum_timeout"`
}

// accessLevels are the values of access_level.
var accessLevels = []string{domain.RunnerNotProtected, domain.RunnerRefProtected}

// runnerScopes are the scope values of runner lists.
var (
	ownedScopes = []string{"active", "paused", "online"}
	allScopes   = []string{"active", "paused", "online", "specific", "shared"}
)

// tokenAnswer is the registration token reset's answer.
type tokenAnswer struct {
	Token          string  `json:"token"`
	TokenExpiresAt *string `json:"token_expires_at"`
}
