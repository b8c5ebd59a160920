package runners

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// The job as gitlab-runner reads it (POST /jobs/request's 201 body);
// see shared/RUNNER-PROTOCOL.md and gitlab-runner's common/network.go.
type jobPayload struct {
	ID            int64           `json:"id"`
	Token         string          `json:"token"`
	AllowGitFetch bool            `json:"allow_git_fetch"`
	JobInfo       jobInfo         `json:"job_info"`
	GitInfo       gitInfo         `json:"git_info"`
	RunnerInfo    runnerInfo      `json:"runner_info"`
	Variables     []jobVariable   `json:"variables"`
	Steps         []jobStep       `json:"steps"`
	Image         *jobImage       `json:"image"`
	Services      []jobImage      `json:"services"`
	Artifacts     []jobArtifact   `json:"artifacts"`
	Cache         []jobCache      `json:"cache"`
	Credentials   []any           `json:"credentials"`
	Dependencies  []jobDependency `json:"dependencies"`
	Features      map[string]any  `json:"features"`
}

type jobInfo struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	Stage       string `json:"stage"`
	ProjectID   int64  `json:"project_id"`
	ProjectName string `json:"project_name"`
}

type gitInfo struct {
	RepoURL   string   `json:"repo_url"`
	Ref       string   `json:"ref"`
	Sha       string   `json:"sha"`
	BeforeSha string   `json:"before_sha"`
	RefType   string   `json:"ref_type"`
	Refspecs  []string `json:"refspecs"`
	Depth     int      `json:"depth"`
}

type runnerInfo struct {
	Timeout int `json:"timeout"`
}

type jobVariable struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Public bool   `json:"public"`
	Masked bool   `json:"masked"`
}

type jobStep struct {
	Name         string   `json:"name"`
	Script       []string `json:"script"`
	Timeout      int      `json:"timeout"`
	When         string   `json:"when"`
	AllowFailure bool     `json:"allow_failure"`
}

type jobImage struct {
	Name       string   `json:"name"`
	Alias      string   `json:"alias,omitempty"`
	Entrypoint []string `json:"entrypoint,omitempty"`
	Command    []string `json:"command,omitempty"`
}

type jobArtifact struct {
	Name           string   `json:"name"`
	Untracked      bool     `json:"untracked"`
	Paths          []string `json:"paths"`
	Exclude        []string `json:"exclude"`
	When           string   `json:"when"`
	ArtifactType   string   `json:"artifact_type"`
	ArtifactFormat string   `json:"artifact_format"`
	ExpireIn       string   `json:"expire_in"`
}

type jobCache struct {
	Key       string   `json:"key"`
	Untracked bool     `json:"untracked"`
	Paths     []string `json:"paths"`
	Policy    string   `json:"policy"`
	When      string   `json:"when"`
}

type jobDependency struct {
	ID            int64         `json:"id"`
	Token         string        `json:"token"`
	Name          string        `json:"name"`
	ArtifactsFile artifactsFile `json:"artifacts_file"`
}

type artifactsFile struct {
	Filename string `json:"filename"`
	Size     int64  `json:"size"`
}

// jobTimeout is the job's timeout in seconds: its own, else the
// configured default, capped by the runner's maximum.
func (s *Service) jobTimeout(j *domain.Job, r *domain.Runner) int {
	t := j.Spec.Timeout
	if t <= 0 {
		t = int(s.p.Config.CI.DefaultTimeout / time.Second)
	}
	if r != nil && r.MaximumTimeout > 0 && t > r.MaximumTimeout {
		t = r.MaximumTimeout
	}
	return t
}

// payload builds what the runner gets for job j, whose token is token.
func (s *Service) payload(ctx context.Context, r *domain.Runner, j *domain.Job, token string) (*jobPayload, error) {
	proj, err := s.project(ctx, j.ProjectID)
	if err != nil {
		return nil, err
	}
	fullPath, ns, err := s.projectPath(ctx, proj)
	if err != nil {
		return nil, err
	}
	pl, err := s.p.Pipelines.GetByID(ctx, j.PipelineID)
	if err != nil {
		return nil, fmt.Errorf("pipeline %d: %w", j.PipelineID, err)
	}
	base := s.p.Config.BaseURL()
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("external url: %w", err)
	}
	repo := *u
	repo.User = url.UserPassword("gitlab-ci-token", token)
	repo.Path = strings.TrimRight(u.Path, "/") + "/" + fullPath + ".git"
	timeout := s.jobTimeout(j, r)

	refType, refspec := "branch", fmt.Sprintf("+refs/heads/%s:refs/remotes/origin/%s", j.Ref, j.Ref)
	if j.Tag {
		refType, refspec = "tag", fmt.Sprintf("+refs/tags/%s:refs/tags/%s", j.Ref, j.Ref)
	}
	before := pl.BeforeSHA
	if before == "" {
		before = strings.Repeat("0", 40)
	}
	vars, err := s.variables(ctx, varContext{
		job: j, runner: r, project: proj, ns: ns, fullPath: fullPath, pipeline: pl,
		token: token, repoURL: repo.String(), base: base, host: u, timeout: timeout,
	})
	if err != nil {
		return nil, err
	}
	deps, err := s.dependencies(ctx, j, token)
	if err != nil {
		return nil, err
	}
	out := &jobPayload{
		ID: j.ID, Token: token, AllowGitFetch: true,
		JobInfo: jobInfo{ID: j.ID, Name: j.Name, Stage: j.Stage, ProjectID: proj.ID, ProjectName: proj.Name},
		GitInfo: gitInfo{
			RepoURL: repo.String(), Ref: j.Ref, Sha: j.SHA, BeforeSha: before, RefType: refType,
			// Depth 0: a full fetch of the refspec, which every git backend serves.
			Refspecs: []string{refspec}, Depth: 0,
		},
		RunnerInfo:   runnerInfo{Timeout: timeout},
		Variables:    vars,
		Steps:        steps(j, timeout),
		Services:     []jobImage{},
		Artifacts:    []jobArtifact{},
		Cache:        []jobCache{},
		Credentials:  []any{},
		Dependencies: deps,
		Features:     map[string]any{"trace_sections": true},
	}
	if img := j.Spec.Image; img != nil {
		out.Image = &jobImage{Name: img.Name, Alias: img.Alias, Entrypoint: img.Entrypoint, Command: img.Command}
	}
	for _, sv := range j.Spec.Services {
		out.Services = append(out.Services, jobImage{Name: sv.Name, Alias: sv.Alias, Entrypoint: sv.Entrypoint, Command: sv.Command})
	}
	if a := j.Spec.Artifacts; a != nil {
		when := a.When
		if when == "" {
			when = domain.WhenOnSuccess
		}
		out.Artifacts = append(out.Artifacts, jobArtifact{
			Name: a.Name, Untracked: a.Untracked, Paths: nonNil(a.Paths), Exclude: []string{}, When: when,
			ArtifactType: "archive", ArtifactFormat: "zip", ExpireIn: a.ExpireIn,
		})
	}
	if c := j.Spec.Cache; c != nil {
		policy := c.Policy
		if policy == "" {
			policy = "pull-push"
		}
		out.Cache = append(out.Cache, jobCache{Key: c.Key, Untracked: c.Untracked, Paths: nonNil(c.Paths), Policy: policy, When: domain.WhenOnSuccess})
	}
	return out, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// steps joins before_script in front of script (as GitLab does) and adds
// after_script as its own step when there is one.
func steps(j *domain.Job, timeout int) []jobStep {
	script := append(append([]string{}, j.Spec.BeforeScript...), j.Spec.Script...)
	out := []jobStep{{Name: "script", Script: script, Timeout: timeout, When: domain.WhenOnSuccess, AllowFailure: false}}
	if len(j.Spec.AfterScript) > 0 {
		out = append(out, jobStep{Name: "after_script", Script: append([]string{}, j.Spec.AfterScript...),
			Timeout: timeout, When: domain.WhenAlways, AllowFailure: true})
	}
	return out
}

type varContext struct {
	job      *domain.Job
	runner   *domain.Runner
	project  *domain.Project
	ns       *domain.Namespace
	fullPath string
	pipeline *domain.Pipeline
	token    string
	repoURL  string
	base     string
	host     *url.URL
	timeout  int
}

// variables are GitLab's predefined variables, then the configuration's
// (pipeline and job), then the project's (protected ones only for jobs
// of protected refs), then those of the trigger request that created the
// pipeline, later ones overriding earlier ones in the runner.
func (s *Service) variables(ctx context.Context, c varContext) ([]jobVariable, error) {
	j := c.job
	trigger, err := s.p.Triggers.OfPipeline(ctx, c.pipeline.ID)
	if errors.Is(err, core.ErrNotFound) {
		trigger = nil
	} else if err != nil {
		return nil, fmt.Errorf("trigger request: %w", err)
	}
	var out []jobVariable
	add := func(key, value string, public bool) {
		out = append(out, jobVariable{Key: key, Value: value, Public: public})
	}
	add("CI", "true", true)
	add("GITLAB_CI", "true", true)
	add("CI_SERVER", "yes", true)
	add("CI_SERVER_URL", c.base, true)
	add("CI_SERVER_HOST", c.host.Hostname(), true)
	port := c.host.Port()
	if port == "" {
		port = map[string]string{"https": "443"}[c.host.Scheme]
		if port == "" {
			port = "80"
		}
	}
	add("CI_SERVER_PORT", port, true)
	add("CI_SERVER_PROTOCOL", c.host.Scheme, true)
	add("CI_SERVER_NAME", "GitLab", true)
	add("CI_JOB_ID", strconv.FormatInt(j.ID, 10), true)
	add("CI_JOB_NAME", j.Name, true)
	add("CI_JOB_STAGE", j.Stage, true)
	add("CI_JOB_URL", fmt.Sprintf("%s/%s/-/jobs/%d", c.base, c.fullPath, j.ID), true)
	add("CI_JOB_TIMEOUT", strconv.Itoa(c.timeout), true)
	out = append(out, jobVariable{Key: "CI_JOB_TOKEN", Value: c.token, Public: false, Masked: true})
	out = append(out, jobVariable{Key: "CI_BUILD_TOKEN", Value: c.token, Public: false, Masked: true})
	add("CI_COMMIT_SHA", j.SHA, true)
	short := j.SHA
	if len(short) > 8 {
		short = short[:8]
	}
	add("CI_COMMIT_SHORT_SHA", short, true)
	before := c.pipeline.BeforeSHA
	if before == "" {
		before = strings.Repeat("0", 40)
	}
	add("CI_COMMIT_BEFORE_SHA", before, true)
	add("CI_COMMIT_REF_NAME", j.Ref, true)
	add("CI_COMMIT_REF_SLUG", refSlug(j.Ref), true)
	add("CI_COMMIT_REF_PROTECTED", strconv.FormatBool(j.Protected), true)
	if j.Tag {
		add("CI_COMMIT_TAG", j.Ref, true)
	} else {
		add("CI_COMMIT_BRANCH", j.Ref, true)
	}
	add("CI_BUILD_ID", strconv.FormatInt(j.ID, 10), true)
	add("CI_BUILD_REF", j.SHA, true)
	add("CI_BUILD_REF_NAME", j.Ref, true)
	add("CI_BUILD_NAME", j.Name, true)
	add("CI_BUILD_STAGE", j.Stage, true)
	add("CI_PROJECT_ID", strconv.FormatInt(c.project.ID, 10), true)
	add("CI_PROJECT_NAME", c.project.Path, true)
	add("CI_PROJECT_TITLE", c.project.Name, true)
	add("CI_PROJECT_PATH", c.fullPath, true)
	add("CI_PROJECT_PATH_SLUG", refSlug(c.fullPath), true)
	add("CI_PROJECT_NAMESPACE", c.ns.FullPath, true)
	add("CI_PROJECT_URL", c.base+"/"+c.fullPath, true)
	add("CI_PROJECT_VISIBILITY", string(c.project.Visibility), true)
	add("CI_DEFAULT_BRANCH", c.project.DefaultBranch, true)
	out = append(out, jobVariable{Key: "CI_REPOSITORY_URL", Value: c.repoURL, Public: false})
	add("CI_PIPELINE_ID", strconv.FormatInt(c.pipeline.ID, 10), true)
	add("CI_PIPELINE_SOURCE", c.pipeline.Source, true)
	if trigger != nil {
		add("CI_PIPELINE_TRIGGERED", "true", true)
	}
	add("CI_PIPELINE_URL", fmt.Sprintf("%s/%s/pipelines/%d", c.base, c.fullPath, c.pipeline.ID), true)
	cfgPath := c.pipeline.ConfigPath
	if cfgPath == "" {
		cfgPath = ".gitlab-ci.yml"
	}
	add("CI_CONFIG_PATH", cfgPath, true)
	if c.runner != nil {
		add("CI_RUNNER_ID", strconv.FormatInt(c.runner.ID, 10), true)
		add("CI_RUNNER_DESCRIPTION", c.runner.Description, true)
		add("CI_RUNNER_TAGS", strings.Join(c.runner.Tags, ", "), true)
	}
	if j.Spec.Environment != "" {
		add("CI_ENVIRONMENT_NAME", j.Spec.Environment, true)
		add("CI_ENVIRONMENT_SLUG", refSlug(j.Spec.Environment), true)
	}
	if j.UserID != nil {
		if u, err := s.p.Users.Get(ctx, *j.UserID); err == nil {
			add("GITLAB_USER_ID", strconv.FormatInt(u.ID, 10), true)
			add("GITLAB_USER_LOGIN", u.Username, true)
			add("GITLAB_USER_NAME", u.Name, true)
			add("GITLAB_USER_EMAIL", u.Email, true)
		}
	}
	for _, v := range j.Spec.Variables {
		out = append(out, jobVariable{Key: v.Key, Value: v.Value, Public: true, Masked: v.Masked})
	}
	for page := 1; ; page++ {
		list, total, err := s.p.Variables.List(ctx, j.ProjectID, domain.Page{Page: page, PerPage: 100})
		if err != nil {
			return nil, fmt.Errorf("project variables: %w", err)
		}
		for _, v := range list {
			if v.Protected && !j.Protected {
				continue
			}
			out = append(out, jobVariable{Key: v.Key, Value: v.Value, Public: false, Masked: v.Masked})
		}
		if len(list) == 0 || page*100 >= total {
			break
		}
	}
	if trigger != nil {
		// GitLab's TriggerRequest#user_variables: not public.
		for _, v := range trigger.Variables {
			out = append(out, jobVariable{Key: v.Key, Value: v.Value, Public: false})
		}
	}
	return out, nil
}

// refSlug is GitLab's CI_COMMIT_REF_SLUG: lower-cased, every character
// but 0-9 and a-z replaced by "-", at most 63 bytes, no leading or
// trailing "-".
func refSlug(s string) string {
	b := []byte(strings.ToLower(s))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	if len(b) > 63 {
		b = b[:63]
	}
	return strings.Trim(string(b), "-")
}

// dependencies are the jobs whose artifacts j downloads: the latest jobs
// of earlier stages (or the ones its dependencies keyword names) that have
// an archive. Their download authorizes with j's own token (Hearth keeps
// only digests, so a dependency's token cannot be sent; see
// DownloadArtifacts).
func (s *Service) dependencies(ctx context.Context, j *domain.Job, token string) ([]jobDependency, error) {
	deps, err := s.dependencyJobs(ctx, j)
	if err != nil {
		return nil, err
	}
	out := []jobDependency{}
	if len(deps) == 0 {
		return out, nil
	}
	ids := make([]int64, len(deps))
	for i, d := range deps {
		ids[i] = d.ID
	}
	arts, err := s.p.Artifacts.OfJobs(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("dependency artifacts: %w", err)
	}
	for _, d := range deps {
		for _, a := range arts[d.ID] {
			if a.Type == artifactArchive {
				out = append(out, jobDependency{ID: d.ID, Token: token, Name: d.Name,
					ArtifactsFile: artifactsFile{Filename: a.Filename, Size: a.Size}})
			}
		}
	}
	return out, nil
}

// dependencyJobs lists the jobs j may download artifacts of.
func (s *Service) dependencyJobs(ctx context.Context, j *domain.Job) ([]domain.Job, error) {
	all, err := s.p.Jobs.OfPipeline(ctx, j.PipelineID)
	if err != nil {
		return nil, fmt.Errorf("pipeline jobs: %w", err)
	}
	var out []domain.Job
	for _, d := range all {
		if d.Retried || d.Kind != domain.JobBuild || d.StageIdx >= j.StageIdx || d.ID == j.ID {
			continue
		}
		if j.Spec.Dependencies != nil && !contains(j.Spec.Dependencies, d.Name) {
			continue
		}
		out = append(out, d)
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
