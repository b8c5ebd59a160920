package runners

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Token prefixes (GitLab's): runner authentication tokens, CI job tokens,
// project runner registration tokens. A runner registered with a
// registration token gets a token without GitLab's "glrt-" prefix, as
// GitLab does: gitlab-runner takes a glrt- token for a runner created in
// the UI and then unregisters only its manager (DELETE /runners/managers),
// leaving the runner registered.
const (
	runnerTokenPrefix       = ""
	jobTokenPrefix          = "glcbt-"
	registrationTokenPrefix = "GR1348941"
)

// contactEvery throttles the runner's contacted_at writes.
const contactEvery = time.Minute

// onlineWithin is how recently a runner must have asked for work to be
// online (GitLab's ONLINE_CONTACT_TIMEOUT).
const onlineWithin = time.Hour

// traceUpdateInterval is what runners are told to wait between trace
// patches (X-GitLab-Trace-Update-Interval), in seconds.
const traceUpdateInterval = "3"

// Params are the service's dependencies, provided by the app.
type Params struct {
	fx.In
	Runners    ports.RunnerStore
	Jobs       ports.JobStore
	Pipelines  ports.PipelineStore
	Projects   ports.ProjectStore
	Namespaces ports.NamespaceStore
	Users      ports.UserStore
	Variables  ports.VariableStore
	Triggers   ports.TriggerStore
	Artifacts  ports.ArtifactStore
	Blob       ports.BlobStore
	Tx         ports.TxManager
	Bus        ports.EventBus
	Clock      ports.Clock
	TokenGen   ports.TokenGenerator
	Policy     *access.Policy
	Config     config.Config
	Log        *zap.Logger
}

// Service holds the runner use cases. It never sees HTTP types.
type Service struct {
	p   Params
	log *zap.Logger

	// contacted remembers when this node last recorded each runner's
	// contact, so that polling every few seconds costs no write.
	mu        sync.Mutex
	contacted map[int64]time.Time
}

// NewService builds the service.
func NewService(p Params) *Service {
	log := p.Log
	if log == nil {
		log = zap.NewNop()
	}
	return &Service{p: p, log: log, contacted: map[int64]time.Time{}}
}

func (s *Service) now() time.Time { return s.p.Clock.Now().UTC() }

// errForbidden is the runner protocol's bare 403.
func errForbidden() error { return core.Forbidden("") }

// runnerByToken authenticates a runner token: 403 when unknown.
func (s *Service) runnerByToken(ctx context.Context, token string) (*domain.Runner, error) {
	if token == "" {
		return nil, core.MissingParam("token")
	}
	digest := domain.TokenDigest(token)
	r, err := s.p.Runners.GetByToken(ctx, digest)
	if errors.Is(err, core.ErrNotFound) {
		return nil, errForbidden()
	}
	if err != nil {
		return nil, fmt.Errorf("find runner: %w", err)
	}
	if subtle.ConstantTimeCompare([]byte(r.TokenDigest), []byte(digest)) != 1 {
		return nil, errForbidden()
	}
	return r, nil
}

// tokenMatches compares a presented job token with the job's digest.
func tokenMatches(j *domain.Job, token string) bool {
	if token == "" || j.TokenDigest == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(j.TokenDigest), []byte(domain.TokenDigest(token))) == 1
}

// tokenLive reports whether a job's token works: while it runs, or after
// a cancel until its runner reported the end.
func tokenLive(j *domain.Job) bool {
	return j.Status == domain.CIRunning || (j.Status == domain.CICanceled && !j.RunnerFinished)
}

// publishJob publishes the JobEvent of a status change, in ctx's transaction.
func (s *Service) publishJob(ctx context.Context, j *domain.Job, previous domain.CIStatus, actor int64) error {
	if j.Status == previous {
		return nil
	}
	if err := s.p.Bus.Publish(ctx, domain.JobEvent{Job: *j, Previous: previous, Actor: actor}); err != nil {
		return fmt.Errorf("publish job event: %w", err)
	}
	return nil
}

// project reads a project by ID.
func (s *Service) project(ctx context.Context, id int64) (*domain.Project, error) {
	p, err := s.p.Projects.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("project %d: %w", id, err)
	}
	return p, nil
}

// projectPath is a project's full path.
func (s *Service) projectPath(ctx context.Context, p *domain.Project) (string, *domain.Namespace, error) {
	ns, err := s.p.Namespaces.Get(ctx, p.NamespaceID)
	if err != nil {
		return "", nil, fmt.Errorf("namespace of project %d: %w", p.ID, err)
	}
	return ns.FullPath + "/" + p.Path, ns, nil
}

// secretEqual compares two secrets in constant time.
func secretEqual(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
