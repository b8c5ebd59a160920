package apijson

import (
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// ObjectKindBuild is the job hook's object_kind: GitLab 9.x still calls
// jobs builds in hooks.
const ObjectKindBuild = "build"

// JobHookInput is a job whose status changed.
type JobHookInput struct {
	Project  HookProjectInput
	Job      domain.Job
	Pipeline domain.Pipeline // the job's pipeline (Job.PipelineID)
	// Commit is the pipeline's commit read from the repository, for its
	// message and author.
	Commit domain.Commit
	// User is the user Job.UserID names; nil sends nulls.
	User *domain.User
	// Now is when the payload is built: a running job's build_duration
	// counts up to it, as GitLab's does. Zero sends null for it.
	Now time.Time
}

// JobHook is GitLab 9.x's build payload (Gitlab::DataBuilder::Build).
type JobHook struct {
	ObjectKind        string             `json:"object_kind"`
	Ref               string             `json:"ref"`
	Tag               bool               `json:"tag"`
	BeforeSHA         string             `json:"before_sha"`
	SHA               string             `json:"sha"`
	BuildID           int64              `json:"build_id"`
	BuildName         string             `json:"build_name"`
	BuildStage        string             `json:"build_stage"`
	BuildStatus       string             `json:"build_status"`
	BuildStartedAt    *HookUTCTime       `json:"build_started_at"`
	BuildFinishedAt   *HookUTCTime       `json:"build_finished_at"`
	BuildDuration     *float64           `json:"build_duration"`
	BuildAllowFailure bool               `json:"build_allow_failure"`
	ProjectID         int64              `json:"project_id"`
	ProjectName       string             `json:"project_name"`
	User              JobHookUser        `json:"user"`
	Commit            JobHookCommit      `json:"commit"`
	Repository        HookPushRepository `json:"repository"`
}

// JobHookUser is the job's user; every key is null without one.
type JobHookUser struct {
	ID    *int64  `json:"id"`
	Name  *string `json:"name"`
	Email *string `json:"email"`
}

// JobHookCommit is the job's pipeline: GitLab 9.x's build hook still
// calls it the commit, so id is the pipeline's id.
type JobHookCommit struct {
	ID          int64        `json:"id"`
	SHA         string       `json:"sha"`
	Message     string       `json:"message"`
	AuthorName  string       `json:"author_name"`
	AuthorEmail string       `json:"author_email"`
	Status      string       `json:"status"`
	Duration    *int         `json:"duration"`
	StartedAt   *HookUTCTime `json:"started_at"`
	FinishedAt  *HookUTCTime `json:"finished_at"`
}

// JobPayload builds the build payload.
func JobPayload(in JobHookInput) JobHook {
	j, p := in.Job, in.Pipeline
	proj := hookProject(in.Project)
	out := JobHook{
		ObjectKind: ObjectKindBuild, Ref: j.Ref, Tag: j.Tag, BeforeSHA: p.BeforeSHA, SHA: j.SHA,
		BuildID: j.ID, BuildName: j.Name, BuildStage: j.Stage, BuildStatus: string(j.Status),
		BuildStartedAt: hookUTCTimePtr(j.StartedAt), BuildFinishedAt: hookUTCTimePtr(j.FinishedAt),
		BuildDuration:     jobDuration(j, in.Now),
		BuildAllowFailure: j.AllowFailure,
		ProjectID:         in.Project.Project.ID,
		// name_with_namespace: the namespace's and the project's display names.
		ProjectName: in.Project.NamespaceName + " / " + in.Project.Project.Name,
		Commit: JobHookCommit{
			ID: p.ID, SHA: p.SHA, Message: in.Commit.Message,
			AuthorName: in.Commit.Author.Name, AuthorEmail: in.Commit.Author.Email,
			Status: string(p.Status), Duration: p.Duration,
			StartedAt: hookUTCTimePtr(p.StartedAt), FinishedAt: hookUTCTimePtr(p.FinishedAt),
		},
		Repository: HookPushRepository{
			Name: proj.Name, URL: proj.URL, Description: proj.Description, Homepage: proj.Homepage,
			GitHTTPURL: proj.GitHTTPURL, GitSSHURL: proj.GitSSHURL, VisibilityLevel: proj.VisibilityLevel,
		},
	}
	if in.User != nil {
		id, name, email := in.User.ID, in.User.Name, in.User.Email
		out.User = JobHookUser{ID: &id, Name: &name, Email: &email}
	}
	return out
}

// jobDuration is the seconds a job ran: until it finished, or until now
// while it runs; nil before it started (or, running, without now).
func jobDuration(j domain.Job, now time.Time) *float64 {
	if j.StartedAt == nil {
		return nil
	}
	end := now
	if j.FinishedAt != nil {
		end = *j.FinishedAt
	} else if now.IsZero() {
		return nil
	}
	d := end.Sub(*j.StartedAt).Seconds()
	return &d
}
