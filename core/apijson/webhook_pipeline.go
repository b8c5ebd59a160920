package apijson

import (
	"slices"
	"sort"

	"github.com/hearth-forge/hearth/core/domain"
)

// ObjectKindPipeline is the pipeline hook's object_kind.
const ObjectKindPipeline = "pipeline"

// PipelineHookInput is a pipeline whose status changed.
type PipelineHookInput struct {
	Project  HookProjectInput
	Pipeline domain.Pipeline
	// User is the user Pipeline.UserID names; nil sends null.
	User *domain.User
	// Commit is the pipeline's commit (Pipeline.SHA) read from the
	// repository; nil sends null.
	Commit *domain.Commit
	// Jobs are every job of the pipeline, retried ones included, as GitLab
	// 9.x lists them; commit statuses give stages but are no builds.
	Jobs []PipelineHookJob
}

// PipelineHookJob is one job with what its block embeds.
type PipelineHookJob struct {
	Job  domain.Job
	User *domain.User // the user Job.UserID names; nil sends null
	// ArtifactsFilename and ArtifactsSize describe the artifacts archive;
	// "" and nil send nulls.
	ArtifactsFilename string
	ArtifactsSize     *int64
}

// PipelineHook is GitLab 9.x's pipeline payload.
type PipelineHook struct {
	ObjectKind       string                 `json:"object_kind"`
	ObjectAttributes PipelineHookAttributes `json:"object_attributes"`
	User             *HookUser              `json:"user"`
	Project          HookProjectAttrs       `json:"project"`
	Commit           *HookGitCommit         `json:"commit"`
	Builds           []PipelineHookBuild    `json:"builds"`
}

// HookProjectAttrs is Project#hook_attrs(backward: false): the project
// block without the deprecated keys, as pipeline hooks send it.
type HookProjectAttrs struct {
	Name              string  `json:"name"`
	Description       string  `json:"description"`
	WebURL            string  `json:"web_url"`
	AvatarURL         *string `json:"avatar_url"`
	GitSSHURL         string  `json:"git_ssh_url"`
	GitHTTPURL        string  `json:"git_http_url"`
	Namespace         string  `json:"namespace"`
	VisibilityLevel   int     `json:"visibility_level"`
	PathWithNamespace string  `json:"path_with_namespace"`
	DefaultBranch     string  `json:"default_branch"`
}

// PipelineHookAttributes is the pipeline's object_attributes.
type PipelineHookAttributes struct {
	ID         int64        `json:"id"`
	Ref        string       `json:"ref"`
	Tag        bool         `json:"tag"`
	SHA        string       `json:"sha"`
	BeforeSHA  string       `json:"before_sha"`
	Status     string       `json:"status"`
	Stages     []string     `json:"stages"`
	CreatedAt  HookUTCTime  `json:"created_at"`
	FinishedAt *HookUTCTime `json:"finished_at"`
	Duration   *int         `json:"duration"`
}

// PipelineHookBuild is one build of a pipeline payload.
type PipelineHookBuild struct {
	ID            int64             `json:"id"`
	Stage         string            `json:"stage"`
	Name          string            `json:"name"`
	Status        string            `json:"status"`
	CreatedAt     HookUTCTime       `json:"created_at"`
	StartedAt     *HookUTCTime      `json:"started_at"`
	FinishedAt    *HookUTCTime      `json:"finished_at"`
	When          string            `json:"when"`
	Manual        bool              `json:"manual"`
	User          *HookUser         `json:"user"`
	ArtifactsFile HookArtifactsFile `json:"artifacts_file"`
}

// HookArtifactsFile names a build's artifacts archive.
type HookArtifactsFile struct {
	Filename *string `json:"filename"`
	Size     *int64  `json:"size"`
}

// PipelinePayload builds the pipeline payload.
func PipelinePayload(in PipelineHookInput) PipelineHook {
	p := in.Pipeline
	proj := hookProject(in.Project)
	out := PipelineHook{
		ObjectKind: ObjectKindPipeline,
		ObjectAttributes: PipelineHookAttributes{
			ID: p.ID, Ref: p.Ref, Tag: p.Tag, SHA: p.SHA, BeforeSHA: p.BeforeSHA, Status: string(p.Status),
			Stages: stageNames(in.Jobs), CreatedAt: HookUTCTime{p.CreatedAt},
			FinishedAt: hookUTCTimePtr(p.FinishedAt), Duration: p.Duration,
		},
		User: hookUserPtr(in.User),
		Project: HookProjectAttrs{
			Name: proj.Name, Description: proj.Description, WebURL: proj.WebURL, AvatarURL: proj.AvatarURL,
			GitSSHURL: proj.GitSSHURL, GitHTTPURL: proj.GitHTTPURL, Namespace: proj.Namespace,
			VisibilityLevel: proj.VisibilityLevel, PathWithNamespace: proj.PathWithNamespace,
			DefaultBranch: proj.DefaultBranch,
		},
		Commit: hookGitCommit(in.Project.WebURL, in.Commit),
		Builds: []PipelineHookBuild{},
	}
	for _, j := range in.Jobs {
		if j.Job.Kind != domain.JobBuild {
			continue
		}
		out.Builds = append(out.Builds, PipelineHookBuild{
			ID: j.Job.ID, Stage: j.Job.Stage, Name: j.Job.Name, Status: string(j.Job.Status),
			CreatedAt: HookUTCTime{j.Job.CreatedAt}, StartedAt: hookUTCTimePtr(j.Job.StartedAt),
			FinishedAt: hookUTCTimePtr(j.Job.FinishedAt), When: j.Job.When,
			Manual: j.Job.When == domain.WhenManual, User: hookUserPtr(j.User),
			ArtifactsFile: HookArtifactsFile{Filename: nonEmpty(j.ArtifactsFilename), Size: j.ArtifactsSize},
		})
	}
	return out
}

// stageNames lists the stages of the jobs in stage order, each once.
func stageNames(jobs []PipelineHookJob) []string {
	sorted := make([]domain.Job, len(jobs))
	for i := range jobs {
		sorted[i] = jobs[i].Job
	}
	sort.SliceStable(sorted, func(a, b int) bool { return sorted[a].StageIdx < sorted[b].StageIdx })
	names := []string{}
	for _, j := range sorted {
		if !slices.Contains(names, j.Stage) {
			names = append(names, j.Stage)
		}
	}
	return names
}

func hookUserPtr(u *domain.User) *HookUser {
	if u == nil {
		return nil
	}
	h := hookUser(u)
	return &h
}
