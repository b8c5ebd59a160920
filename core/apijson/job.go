package apijson

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
)

// UserPublic is GitLab's "User (public single)" (Entities::User), which
// jobs embed as their user.
type UserPublic struct {
	UserBasic
	CreatedAt    httpx.Time `json:"created_at"`
	Bio          *string    `json:"bio"`
	Location     *string    `json:"location"`
	Skype        string     `json:"skype"`
	Linkedin     string     `json:"linkedin"`
	Twitter      string     `json:"twitter"`
	WebsiteURL   string     `json:"website_url"`
	Organization string     `json:"organization"`
}

// UserPublicOf renders u; base is the external URL without a trailing slash.
func UserPublicOf(base string, u *domain.User) UserPublic {
	return UserPublic{
		UserBasic: UserBasicOf(base, u), CreatedAt: httpx.TimeOf(u.CreatedAt),
		Bio: NullString(u.Bio), Location: NullString(u.Location), Skype: u.Skype, Linkedin: u.Linkedin,
		Twitter: u.Twitter, WebsiteURL: u.WebsiteURL, Organization: u.Organization,
	}
}

// JobCommit is the commit a job embeds (the spec's "Job commit object").
type JobCommit struct {
	ID          string    `json:"id"`
	ShortID     string    `json:"short_id"`
	Title       string    `json:"title"`
	CreatedAt   time.Time `json:"created_at"`
	Message     string    `json:"message"`
	AuthorName  string    `json:"author_name"`
	AuthorEmail string    `json:"author_email"`
}

// JobCommitOf renders c.
func JobCommitOf(c domain.Commit) JobCommit {
	return JobCommit{ID: c.ID, ShortID: c.ShortID(), Title: c.Title(), CreatedAt: c.Committer.When,
		Message: c.Message, AuthorName: c.Author.Name, AuthorEmail: c.Author.Email}
}

// JobPipeline is the pipeline a job embeds ({id, ref, sha, status}).
type JobPipeline struct {
	ID     int64  `json:"id"`
	Ref    string `json:"ref"`
	SHA    string `json:"sha"`
	Status string `json:"status"`
}

// JobRunner is the runner a job embeds (GitLab's Entities::Runner).
type JobRunner struct {
	ID          int64   `json:"id"`
	Description string  `json:"description"`
	Active      bool    `json:"active"`
	IsShared    bool    `json:"is_shared"`
	Name        *string `json:"name"`
}

// JobArtifactFile is a job's archive ({filename, size}).
type JobArtifactFile struct {
	Filename string `json:"filename"`
	Size     int64  `json:"size"`
}

// JobArtifact is one file of a job's artifacts (later GitLab's
// "artifacts" list).
type JobArtifact struct {
	FileType   string `json:"file_type"`
	Size       int64  `json:"size"`
	Filename   string `json:"filename"`
	FileFormat string `json:"file_format"`
}

// JobProject is the project a runner's job embeds (ProjectIdentity).
type JobProject struct {
	ID                int64      `json:"id"`
	Description       *string    `json:"description"`
	Name              string     `json:"name"`
	NameWithNamespace string     `json:"name_with_namespace"`
	Path              string     `json:"path"`
	PathWithNamespace string     `json:"path_with_namespace"`
	CreatedAt         httpx.Time `json:"created_at"`
}

// Job is GitLab's Job entity. Pipeline is absent where the spec says so
// (the responses of cancel, retry, erase, keep and play); Project only
// in a runner's job list.
type Job struct {
	ID                int64            `json:"id"`
	Status            string           `json:"status"`
	Stage             string           `json:"stage"`
	Name              string           `json:"name"`
	Ref               string           `json:"ref"`
	Tag               bool             `json:"tag"`
	Coverage          *float64         `json:"coverage"`
	AllowFailure      bool             `json:"allow_failure"`
	CreatedAt         httpx.Time       `json:"created_at"`
	StartedAt         *httpx.Time      `json:"started_at"`
	FinishedAt        *httpx.Time      `json:"finished_at"`
	ErasedAt          *httpx.Time      `json:"erased_at"`
	Duration          *float64         `json:"duration"`
	User              *UserPublic      `json:"user"`
	Commit            *JobCommit       `json:"commit"`
	Pipeline          *JobPipeline     `json:"pipeline,omitempty"`
	Project           *JobProject      `json:"project,omitempty"`
	WebURL            string           `json:"web_url"`
	ArtifactsFile     *JobArtifactFile `json:"artifacts_file"`
	Artifacts         []JobArtifact    `json:"artifacts"`
	ArtifactsExpireAt *httpx.Time      `json:"artifacts_expire_at"`
	Runner            *JobRunner       `json:"runner"`
	// FailureReason shows on failed jobs only, as GitLab does.
	FailureReason string `json:"failure_reason,omitempty"`
}

// JobOptions choose the optional parts of a rendered job.
type JobOptions struct {
	// Pipeline embeds the job's pipeline (lists and single reads).
	Pipeline bool
	// Project embeds the job's project (a runner's jobs).
	Project bool
}

// JobPresenter renders pages of jobs with what they embed in one query
// per kind (users, pipelines, runners, artifacts, projects) and one
// commit read per distinct commit: never one query per job.
type JobPresenter struct {
	// BaseURL is the external URL without a trailing slash.
	BaseURL   string
	Users     ports.UserStore
	Pipelines ports.PipelineStore
	Runners   ports.RunnerStore
	Artifacts ports.ArtifactStore
	Projects  ports.ProjectStore
	// Presenter renders the projects' paths (web_url, project).
	Presenter *ProjectPresenter
	Repos     ports.RepoReader
	Clock     ports.Clock
}

// jobEmbeds is what one page of jobs embeds.
type jobEmbeds struct {
	users     map[int64]*domain.User
	pipelines map[int64]*domain.Pipeline
	runners   map[int64]*domain.Runner
	artifacts map[int64][]domain.Artifact
	projects  map[int64]*domain.Project
	basics    map[int64]ProjectBasic
	commits   map[commitKey]*domain.Commit
}

type commitKey struct {
	projectID int64
	sha       string
}

// Render renders list in order.
func (p *JobPresenter) Render(ctx context.Context, list []domain.Job, opt JobOptions) ([]Job, error) {
	em, err := p.load(ctx, list, opt)
	if err != nil {
		return nil, err
	}
	now := p.Clock.Now()
	out := make([]Job, 0, len(list))
	for i := range list {
		out = append(out, p.job(em, &list[i], opt, now))
	}
	return out, nil
}

// One renders a single job.
func (p *JobPresenter) One(ctx context.Context, j *domain.Job, opt JobOptions) (*Job, error) {
	out, err := p.Render(ctx, []domain.Job{*j}, opt)
	if err != nil {
		return nil, err
	}
	return &out[0], nil
}

func (p *JobPresenter) load(ctx context.Context, list []domain.Job, opt JobOptions) (*jobEmbeds, error) {
	em := &jobEmbeds{users: map[int64]*domain.User{}, pipelines: map[int64]*domain.Pipeline{},
		runners: map[int64]*domain.Runner{}, artifacts: map[int64][]domain.Artifact{},
		projects: map[int64]*domain.Project{}, basics: map[int64]ProjectBasic{}, commits: map[commitKey]*domain.Commit{}}
	if len(list) == 0 {
		return em, nil
	}
	var userIDs, pipelineIDs, runnerIDs, jobIDs, projectIDs []int64
	for _, j := range list {
		jobIDs = append(jobIDs, j.ID)
		projectIDs = append(projectIDs, j.ProjectID)
		pipelineIDs = append(pipelineIDs, j.PipelineID)
		if j.UserID != nil {
			userIDs = append(userIDs, *j.UserID)
		}
		if j.RunnerID != nil {
			runnerIDs = append(runnerIDs, *j.RunnerID)
		}
	}
	var err error
	if len(userIDs) > 0 {
		if em.users, err = usersByID(ctx, p.Users, uniq(userIDs), "jobs"); err != nil {
			return nil, err
		}
	}
	if opt.Pipeline {
		ps, _, err := p.Pipelines.List(ctx, domain.PipelineFilter{IDs: uniq(pipelineIDs)})
		if err != nil {
			return nil, fmt.Errorf("load pipelines of jobs: %w", err)
		}
		for i := range ps {
			em.pipelines[ps[i].ID] = &ps[i]
		}
	}
	if len(runnerIDs) > 0 {
		rs, _, err := p.Runners.List(ctx, domain.RunnerFilter{IDs: uniq(runnerIDs)})
		if err != nil {
			return nil, fmt.Errorf("load runners of jobs: %w", err)
		}
		for i := range rs {
			em.runners[rs[i].ID] = &rs[i]
		}
	}
	if em.artifacts, err = p.Artifacts.OfJobs(ctx, jobIDs); err != nil {
		return nil, fmt.Errorf("load artifacts of jobs: %w", err)
	}
	projects, err := p.Projects.GetMany(ctx, uniq(projectIDs))
	if err != nil {
		return nil, fmt.Errorf("load projects of jobs: %w", err)
	}
	for i := range projects {
		em.projects[projects[i].ID] = &projects[i]
	}
	if em.basics, err = p.Presenter.Basics(ctx, projects); err != nil {
		return nil, fmt.Errorf("render projects of jobs: %w", err)
	}
	for _, j := range list {
		k := commitKey{j.ProjectID, j.SHA}
		if _, done := em.commits[k]; done || j.SHA == "" {
			continue
		}
		c, err := p.Repos.Commit(ctx, domain.RepoPath(j.ProjectID), j.SHA)
		switch {
		case errors.Is(err, core.ErrNotFound) || errors.Is(err, core.ErrInvalid):
			em.commits[k] = nil // gone from the repository: commit null
		case err != nil:
			return nil, fmt.Errorf("read commit %s of job %d: %w", j.SHA, j.ID, err)
		default:
			em.commits[k] = &c
		}
	}
	return em, nil
}

func (p *JobPresenter) job(em *jobEmbeds, j *domain.Job, opt JobOptions, now time.Time) Job {
	out := Job{
		ID: j.ID, Status: string(j.Status), Stage: j.Stage, Name: j.Name, Ref: j.Ref, Tag: j.Tag,
		Coverage: j.Coverage, AllowFailure: j.AllowFailure, CreatedAt: httpx.TimeOf(j.CreatedAt),
		StartedAt: httpx.TimePtr(j.StartedAt), FinishedAt: httpx.TimePtr(j.FinishedAt), ErasedAt: httpx.TimePtr(j.ErasedAt),
		Duration:          j.Duration(now),
		ArtifactsExpireAt: httpx.TimePtr(j.ArtifactsExpireAt), Artifacts: []JobArtifact{},
	}
	if j.Status == domain.CIFailed {
		out.FailureReason = j.FailureReason
		if out.FailureReason == "" {
			out.FailureReason = domain.FailureUnknown
		}
	}
	if j.UserID != nil {
		if u := em.users[*j.UserID]; u != nil {
			up := UserPublicOf(p.BaseURL, u)
			out.User = &up
		}
	}
	if c := em.commits[commitKey{j.ProjectID, j.SHA}]; c != nil {
		jc := JobCommitOf(*c)
		out.Commit = &jc
	}
	if opt.Pipeline {
		if pl := em.pipelines[j.PipelineID]; pl != nil {
			out.Pipeline = &JobPipeline{ID: pl.ID, Ref: pl.Ref, SHA: pl.SHA, Status: string(pl.Status)}
		}
	}
	if b, ok := em.basics[j.ProjectID]; ok {
		out.WebURL = b.WebURL + "/-/jobs/" + fmt.Sprint(j.ID)
		if opt.Project {
			out.Project = &JobProject{ID: b.ID, Description: b.Description, Name: b.Name,
				NameWithNamespace: b.NameWithNamespace, Path: b.Path, PathWithNamespace: b.PathWithNamespace,
				CreatedAt: b.CreatedAt}
		}
	}
	if j.RunnerID != nil {
		if r := em.runners[*j.RunnerID]; r != nil {
			out.Runner = &JobRunner{ID: r.ID, Description: r.Description, Active: r.Active,
				IsShared: r.IsShared, Name: NullString(r.Name)}
		}
	}
	for _, a := range em.artifacts[j.ID] {
		out.Artifacts = append(out.Artifacts, JobArtifact{FileType: a.Type, Size: a.Size, Filename: a.Filename, FileFormat: a.Format})
		if a.Type == "archive" {
			out.ArtifactsFile = &JobArtifactFile{Filename: a.Filename, Size: a.Size}
		}
	}
	return out
}

// uniq drops repeated IDs, keeping the first of each.
func uniq(ids []int64) []int64 {
	seen := make(map[int64]bool, len(ids))
	out := make([]int64, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
