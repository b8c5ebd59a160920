package apijson_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
)

// Golden keys of the pipeline and job events of GitLab 9.x's webhooks.md,
// as lib/gitlab/data_builder/pipeline.rb and build.rb of 9.x build them:
// no source, variables, merge_request or runner (later versions add
// those), and the build's repository keeps url.
var (
	pipelineKeys = joinKeys(
		[]string{"object_kind", "object_attributes", "user", "project", "commit", "builds"},
		prefixed("object_attributes.", []string{"id", "ref", "tag", "sha", "before_sha", "status", "stages",
			"created_at", "finished_at", "duration"}),
		prefixed("user.", hookUserKeys),
		prefixed("project.", hookProjectKeys[:10]),
		prefixed("commit.", hookGitCommitKeys),
		prefixed("builds[].", []string{"id", "stage", "name", "status", "created_at", "started_at", "finished_at",
			"when", "manual", "user", "artifacts_file", "artifacts_file.filename", "artifacts_file.size"}),
		prefixed("builds[].user.", hookUserKeys),
	)
	jobKeys = joinKeys(
		[]string{"object_kind", "ref", "tag", "before_sha", "sha", "build_id", "build_name", "build_stage",
			"build_status", "build_started_at", "build_finished_at", "build_duration", "build_allow_failure",
			"project_id", "project_name", "user", "commit", "repository"},
		prefixed("user.", []string{"id", "name", "email"}),
		prefixed("commit.", []string{"id", "sha", "message", "author_name", "author_email", "status",
			"duration", "started_at", "finished_at"}),
		prefixed("repository.", []string{"name", "url", "description", "homepage", "git_http_url",
			"git_ssh_url", "visibility_level"}),
	)
)

var ciStart = time.Date(2016, 8, 12, 15, 23, 28, 0, time.UTC)

func at(d time.Duration) *time.Time { t := ciStart.Add(d); return &t }

func pipeline() domain.Pipeline {
	duration, user := 63, int64(4)
	return domain.Pipeline{ID: 31, ProjectID: 15, Ref: "master", SHA: strings.Repeat("d", 40),
		BeforeSHA: strings.Repeat("b", 40), Status: domain.CISuccess, Source: domain.SourcePush, UserID: &user,
		CreatedAt: ciStart, StartedAt: at(time.Minute), FinishedAt: at(3 * time.Minute), Duration: &duration}
}

func ciJob(id int64, stage string, idx int, name string, status domain.CIStatus) domain.Job {
	return domain.Job{ID: id, ProjectID: 15, PipelineID: 31, Kind: domain.JobBuild, Name: name, Stage: stage,
		StageIdx: idx, Status: status, Ref: "master", SHA: strings.Repeat("d", 40), When: domain.WhenOnSuccess,
		CreatedAt: ciStart}
}

func TestPipelinePayloadMatchesDocAndGoGitLab(t *testing.T) {
	head := headCommit()
	build := ciJob(376, "build", 0, "build-image", domain.CISuccess)
	build.StartedAt, build.FinishedAt = at(time.Minute), at(2*time.Minute)
	deploy := ciJob(380, "deploy", 2, "production", domain.CIManual)
	deploy.When = domain.WhenManual
	status := ciJob(381, "test", 1, "ci/external", domain.CISuccess)
	status.Kind = domain.JobExternal
	size := int64(1024)
	// Jobs come in any order: stages follow the stage index.
	body := marshal(t, apijson.PipelinePayload(apijson.PipelineHookInput{
		Project: hookProject(), Pipeline: pipeline(), User: &pusher, Commit: &head,
		Jobs: []apijson.PipelineHookJob{
			{Job: deploy},
			{Job: build, User: &pusher, ArtifactsFilename: "artifacts.zip", ArtifactsSize: &size},
			{Job: status},
		},
	}))
	assertKeys(t, body, pipelineKeys)

	ev, err := gitlab.ParseWebhook(gitlab.EventTypePipeline, body)
	if err != nil {
		t.Fatalf("go-gitlab rejects the pipeline payload: %v\n%s", err, body)
	}
	p := ev.(*gitlab.PipelineEvent)
	a := p.ObjectAttributes
	if p.ObjectKind != "pipeline" || a.ID != 31 || a.Ref != "master" || a.Tag || a.SHA != strings.Repeat("d", 40) ||
		a.BeforeSHA != strings.Repeat("b", 40) || a.Status != "success" || a.Duration != 63 ||
		!slices.Equal(a.Stages, []string{"build", "test", "deploy"}) {
		t.Errorf("decoded object_attributes = %+v", a)
	}
	if a.CreatedAt != "2016-08-12 15:23:28 UTC" || a.FinishedAt != "2016-08-12 15:26:28 UTC" {
		t.Errorf("timestamps %q %q", a.CreatedAt, a.FinishedAt)
	}
	if p.User == nil || p.User.Username != "jsmith" || p.Project.PathWithNamespace != "mike/diaspora" ||
		p.Project.Namespace != "Mike" || p.Commit.ID != head.ID || p.Commit.Author.Name != "GitLab dev user" {
		t.Errorf("decoded user/project/commit = %+v %+v %+v", p.User, p.Project, p.Commit)
	}
	// Commit statuses are no builds.
	if len(p.Builds) != 2 {
		t.Fatalf("decoded %d builds, want 2", len(p.Builds))
	}
	prod, img := p.Builds[0], p.Builds[1]
	if prod.ID != 380 || prod.Status != "manual" || !prod.Manual || prod.When != "manual" || prod.User != nil ||
		prod.StartedAt != "" || prod.ArtifactsFile.Filename != "" {
		t.Errorf("decoded manual build = %+v", prod)
	}
	if img.ID != 376 || img.Stage != "build" || img.Name != "build-image" || img.Manual ||
		img.StartedAt != "2016-08-12 15:24:28 UTC" || img.FinishedAt != "2016-08-12 15:25:28 UTC" ||
		img.User == nil || img.User.Username != "jsmith" ||
		img.ArtifactsFile.Filename != "artifacts.zip" || img.ArtifactsFile.Size != 1024 {
		t.Errorf("decoded build = %+v", img)
	}
}

func TestPipelineWithoutUserOrCommit(t *testing.T) {
	pl := pipeline()
	pl.Status, pl.FinishedAt, pl.Duration, pl.UserID = domain.CIPending, nil, nil, nil
	body := marshal(t, apijson.PipelinePayload(apijson.PipelineHookInput{Project: hookProject(), Pipeline: pl}))
	for _, s := range []string{`"user":null`, `"commit":null`, `"builds":[]`, `"stages":[]`,
		`"finished_at":null`, `"duration":null`} {
		if !strings.Contains(string(body), s) {
			t.Errorf("payload lacks %s: %s", s, body)
		}
	}
	if _, err := gitlab.ParseWebhook(gitlab.EventTypePipeline, body); err != nil {
		t.Fatalf("go-gitlab rejects the pipeline payload: %v", err)
	}
}

func TestJobPayloadMatchesDocAndGoGitLab(t *testing.T) {
	job := ciJob(1977, "test", 1, "rspec", domain.CIFailed)
	job.AllowFailure, job.StartedAt, job.FinishedAt = true, at(time.Minute), at(time.Minute+90*time.Second)
	pl := pipeline()
	pl.Status, pl.FinishedAt, pl.Duration = domain.CIRunning, nil, nil
	body := marshal(t, apijson.JobPayload(apijson.JobHookInput{
		Project: hookProject(), Job: job, Pipeline: pl, Commit: headCommit(), User: &pusher,
	}))
	assertKeys(t, body, jobKeys)

	ev, err := gitlab.ParseWebhook(gitlab.EventTypeJob, body)
	if err != nil {
		t.Fatalf("go-gitlab rejects the job payload: %v\n%s", err, body)
	}
	j := ev.(*gitlab.JobEvent)
	if j.ObjectKind != "build" || j.BuildID != 1977 || j.BuildName != "rspec" || j.BuildStage != "test" ||
		j.BuildStatus != "failed" || !j.BuildAllowFailure || j.BuildDuration != 90 || j.Ref != "master" || j.Tag ||
		j.SHA != strings.Repeat("d", 40) || j.BeforeSHA != strings.Repeat("b", 40) ||
		j.ProjectID != 15 || j.ProjectName != "Mike / Diaspora" {
		t.Errorf("decoded job = %+v", j)
	}
	if j.BuildStartedAt != "2016-08-12 15:24:28 UTC" || j.BuildFinishedAt != "2016-08-12 15:25:58 UTC" {
		t.Errorf("timestamps %q %q", j.BuildStartedAt, j.BuildFinishedAt)
	}
	if j.User == nil || j.User.ID != 4 || j.User.Name != "John Smith" || j.User.Email != "john@example.com" {
		t.Errorf("decoded user = %+v", j.User)
	}
	c := j.Commit
	// The commit block is the pipeline.
	if c.ID != 31 || c.SHA != strings.Repeat("d", 40) || c.Message != "fixed readme\n" || c.AuthorName != "GitLab dev user" ||
		c.AuthorEmail != "gitlabdev@example.com" || c.Status != "running" || c.StartedAt != "2016-08-12 15:24:28 UTC" ||
		c.FinishedAt != "" {
		t.Errorf("decoded commit = %+v", c)
	}
	if j.Repository == nil || j.Repository.Name != "Diaspora" || j.Repository.URL != "git@example.com:mike/diaspora.git" ||
		j.Repository.Homepage != "http://example.com/mike/diaspora" || j.Repository.GitHTTPURL != "http://example.com/mike/diaspora.git" {
		t.Errorf("decoded repository = %+v", j.Repository)
	}
	if !strings.Contains(string(body), `"visibility_level":10`) || !strings.Contains(string(body), `"duration":null`) {
		t.Errorf("job payload: %s", body)
	}
}

func TestJobDurationAndMissingUser(t *testing.T) {
	running := ciJob(7, "test", 1, "rspec", domain.CIRunning)
	running.StartedAt = at(0)
	in := apijson.JobHookInput{Project: hookProject(), Job: running, Pipeline: pipeline(), Commit: headCommit()}

	body := marshal(t, apijson.JobPayload(in))
	for _, s := range []string{`"build_duration":null`, `"build_finished_at":null`,
		`"user":{"id":null,"name":null,"email":null}`} {
		if !strings.Contains(string(body), s) {
			t.Errorf("payload lacks %s: %s", s, body)
		}
	}
	// A running job counts up to now, as GitLab's duration does.
	in.Now = ciStart.Add(45 * time.Second)
	if body := marshal(t, apijson.JobPayload(in)); !strings.Contains(string(body), `"build_duration":45,`) {
		t.Errorf("running job duration: %s", body)
	}
	pending := ciJob(8, "test", 1, "rspec", domain.CIPending)
	in.Job = pending
	if body := marshal(t, apijson.JobPayload(in)); !strings.Contains(string(body), `"build_duration":null`) {
		t.Errorf("pending job duration: %s", body)
	}
}
