package jobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// GitLab's answers when a job has nothing to download (the spec's 404s).
var (
	errNoArtifacts = &core.Error{Kind: core.ErrNotFound, Msg: "Build not found or no artifacts"}
	errNoTrace     = &core.Error{Kind: core.ErrNotFound, Msg: "Build not found or no trace file"}
)

// Listed is one page of jobs and the total.
type Listed struct {
	Jobs  []domain.Job
	Total int
}

// List returns one page of the project's jobs, newest first, of the
// scope's statuses (every status when none). Retried jobs are listed too,
// as GitLab 9.x does.
func (s *Service) List(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in ListInput) (*Listed, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref, access.ReadJob)
	if err != nil {
		return nil, err
	}
	return s.list(ctx, domain.JobFilter{ProjectID: t.Project.ID}, in)
}

// ListOfPipeline is List for one pipeline of the project (404 "Pipeline
// Not Found" for one it does not have); as in GitLab 9.x the jobs
// superseded by a retry are listed too.
func (s *Service) ListOfPipeline(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, pipelineID int64, in ListInput) (*Listed, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref, access.ReadJob)
	if err != nil {
		return nil, err
	}
	if pipelineID <= 0 {
		return nil, core.NotFound("Pipeline")
	}
	if _, err := s.p.Pipelines.Get(ctx, t.Project.ID, pipelineID); err != nil {
		return nil, core.StoreError(err, "Pipeline", "read pipeline")
	}
	return s.list(ctx, domain.JobFilter{ProjectID: t.Project.ID, PipelineID: pipelineID}, in)
}

func (s *Service) list(ctx context.Context, f domain.JobFilter, in ListInput) (*Listed, error) {
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	statuses, err := scopeStatuses("scope", in.Scope)
	if err != nil {
		return nil, err
	}
	// Commit statuses of other systems are not jobs (GitLab lists builds).
	f.Statuses, f.Page, f.Kind = statuses, in.Page, domain.JobBuild
	list, total, err := s.p.Jobs.List(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	return &Listed{Jobs: list, Total: total}, nil
}

// Get reads one job of the project.
func (s *Service) Get(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id int64) (*Found, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref, access.ReadJob)
	if err != nil {
		return nil, err
	}
	j, err := s.load(ctx, t, id)
	if err != nil {
		return nil, err
	}
	return &Found{Project: t.Project, Job: j}, nil
}

// Trace is a job's log: the stored part while it runs, else the archived
// file. The caller closes it.
func (s *Service) Trace(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id int64) (*Download, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref, access.ReadJob)
	if err != nil {
		return nil, err
	}
	j, err := s.load(ctx, t, id)
	if errors.Is(err, core.ErrNotFound) {
		return nil, errNoTrace
	}
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("%d.log", j.ID)
	stored, err := s.p.Jobs.Trace(ctx, j.ID)
	if err != nil {
		return nil, fmt.Errorf("read trace of job %d: %w", j.ID, err)
	}
	if len(stored) > 0 {
		return &Download{Body: io.NopCloser(bytes.NewReader(stored)), Size: int64(len(stored)), Filename: name}, nil
	}
	body, size, err := s.p.Blobs.Open(ctx, domain.TraceKey(j.ProjectID, j.ID))
	if errors.Is(err, core.ErrNotFound) {
		return nil, errNoTrace
	}
	if err != nil {
		return nil, fmt.Errorf("open trace of job %d: %w", j.ID, err)
	}
	return &Download{Body: body, Size: size, Filename: name}, nil
}

// Download is a file to stream to the client; the caller closes Body.
type Download struct {
	Body     io.ReadCloser
	Size     int64
	Filename string
}

// Artifacts opens the job's artifacts archive.
func (s *Service) Artifacts(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id int64) (*Download, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref, access.ReadJob)
	if err != nil {
		return nil, err
	}
	j, err := s.load(ctx, t, id)
	if errors.Is(err, core.ErrNotFound) {
		return nil, errNoArtifacts
	}
	if err != nil {
		return nil, err
	}
	return s.archive(ctx, j)
}

// ArtifactsOfRef opens the archive of the job named in.Job of the ref's
// latest successful pipeline, if that job succeeded.
func (s *Service) ArtifactsOfRef(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, refName string, in DownloadInput) (*Download, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref, access.ReadJob)
	if err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	if in.Job == "" {
		return nil, core.MissingParam("job")
	}
	pls, _, err := s.p.Pipelines.List(ctx, domain.PipelineFilter{ProjectID: t.Project.ID, Ref: refName,
		Status: domain.CISuccess, Page: domain.Page{Page: 1, PerPage: 1}})
	if err != nil {
		return nil, fmt.Errorf("latest successful pipeline of %q: %w", refName, err)
	}
	if len(pls) == 0 {
		return nil, errNoArtifacts
	}
	jobs, _, err := s.p.Jobs.List(ctx, domain.JobFilter{ProjectID: t.Project.ID, PipelineID: pls[0].ID, Name: in.Job, Kind: domain.JobBuild,
		Latest: true, Statuses: []domain.CIStatus{domain.CISuccess}, Page: domain.Page{Page: 1, PerPage: 1}})
	if err != nil {
		return nil, fmt.Errorf("job %q of pipeline %d: %w", in.Job, pls[0].ID, err)
	}
	if len(jobs) == 0 {
		return nil, errNoArtifacts
	}
	return s.archive(ctx, &jobs[0])
}

// archive opens the job's "archive" artifact from the blob store.
func (s *Service) archive(ctx context.Context, j *domain.Job) (*Download, error) {
	arts, err := s.p.Artifacts.OfJobs(ctx, []int64{j.ID})
	if err != nil {
		return nil, fmt.Errorf("artifacts of job %d: %w", j.ID, err)
	}
	a := archiveOf(arts[j.ID])
	if a == nil {
		return nil, errNoArtifacts
	}
	body, size, err := s.p.Blobs.Open(ctx, a.Key)
	if errors.Is(err, core.ErrNotFound) {
		return nil, errNoArtifacts
	}
	if err != nil {
		return nil, fmt.Errorf("open artifacts of job %d: %w", j.ID, err)
	}
	name := a.Filename
	if name == "" {
		name = "artifacts.zip"
	}
	return &Download{Body: body, Size: size, Filename: name}, nil
}

func archiveOf(arts []domain.Artifact) *domain.Artifact {
	for i := range arts {
		if arts[i].Type == "archive" {
			return &arts[i]
		}
	}
	return nil
}
