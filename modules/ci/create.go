package ci

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// defaultConfigPath is where the configuration is read when the project
// names no other (ci_config_path).
const defaultConfigPath = ".gitlab-ci.yml"

// skipPattern is GitLab's [ci skip] / [skip ci] marker (with "-" or "_"
// for the space), in any case.
var skipPattern = regexp.MustCompile(`(?i)\[(ci[ _-]skip|skip[ _-]ci)\]`)

// errNoJobs: every job was filtered out by only/except.
const errNoJobs = "No stages / jobs for this pipeline."

// request is one pipeline to create (GitLab's CreatePipelineService).
type request struct {
	project *domain.Project
	source  string
	ref     string // short name
	tag     bool
	sha     string
	before  string
	userID  int64
	// push: a configuration error becomes a failed pipeline and [ci skip]
	// a skipped one (save_on_errors, and skip ci honoured); from the API
	// both are the caller's 400.
	push bool
	// saveErrors: a configuration error becomes a failed pipeline also
	// outside pushes (GitLab's triggers keep save_on_errors), while [ci
	// skip] is still ignored.
	saveErrors bool
	// record runs in the pipeline's transaction once it has an ID (a
	// trigger's request with its variables), so that no runner takes a
	// job before what it needs is stored.
	record func(ctx context.Context, p *domain.Pipeline) error
}

// refusal is why no pipeline was created: GitLab's pipeline error on
// base, a 400 {"message":{"base":[...]}} for the API.
type refusal string

func (r refusal) Error() string { return string(r) }

func (r refusal) apiError() error { return core.Validation(map[string][]string{"base": {string(r)}}) }

// onPush creates the pipeline of a branch or tag a push created or
// moved, in a project with jobs enabled. No configuration file, or one
// whose jobs all filter out, makes no pipeline.
func (s *Service) onPush(ctx context.Context, ev domain.PushEvent) error {
	// The push is done: a client that went away must not lose its pipeline.
	ctx = context.WithoutCancel(ctx)
	if ev.After == "" || ev.After == domain.ZeroID {
		return nil
	}
	name, tag := "", false
	switch {
	case strings.HasPrefix(ev.Ref, domain.BranchPrefix):
		name = strings.TrimPrefix(ev.Ref, domain.BranchPrefix)
	case strings.HasPrefix(ev.Ref, domain.TagPrefix):
		name, tag = strings.TrimPrefix(ev.Ref, domain.TagPrefix), true
	default:
		return nil
	}
	proj, err := s.p.Projects.Get(ctx, ev.ProjectID)
	if errors.Is(err, core.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("project of push: %w", err)
	}
	if !proj.JobsEnabled {
		return nil
	}
	sha, err := s.commitOfPush(ctx, proj, ev, name, tag)
	if err != nil {
		return err
	}
	_, err = s.create(ctx, request{project: proj, source: domain.SourcePush, ref: name, tag: tag, sha: sha,
		before: ev.Before, userID: ev.Actor, push: true})
	var r refusal
	if errors.As(err, &r) {
		s.log.Debug("no pipeline for push", zap.Int64("project_id", proj.ID), zap.String("ref", ev.Ref), zap.String("reason", string(r)))
		return nil
	}
	return err
}

// commitOfPush is the commit the pushed ref points at (a tag's, peeled).
func (s *Service) commitOfPush(ctx context.Context, p *domain.Project, ev domain.PushEvent, name string, tag bool) (string, error) {
	repo := domain.RepoPath(p.ID)
	c, err := s.p.Reader.Commit(ctx, repo, ev.After)
	if err == nil {
		return c.ID, nil
	}
	if tag {
		if t, terr := s.p.Reader.Tag(ctx, repo, name); terr == nil && t.TargetID == ev.After {
			return t.Commit.ID, nil
		}
	}
	return "", fmt.Errorf("commit %s of %s: %w", ev.After, ev.Ref, err)
}

// create builds and stores a pipeline for r with its jobs, processes it
// (the first stage is enqueued) and publishes it, in one transaction. A
// refusal is returned when GitLab creates nothing.
func (s *Service) create(ctx context.Context, r request) (*domain.Pipeline, error) {
	repo := domain.RepoPath(r.project.ID)
	commit, err := s.p.Reader.Commit(ctx, repo, r.sha)
	if errors.Is(err, core.ErrNotFound) {
		return nil, refusal("Commit not found")
	}
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", r.sha, err)
	}
	path := r.project.CIConfigPath
	if path == "" {
		path = defaultConfigPath
	}
	src, err := s.p.Reader.File(ctx, repo, commit.ID, path)
	if errors.Is(err, core.ErrNotFound) || errors.Is(err, core.ErrInvalid) {
		return nil, refusal("Missing " + path + " file")
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	now := s.now()
	committed := commit.Committer.When.UTC()
	p := &domain.Pipeline{ProjectID: r.project.ID, Ref: r.ref, Tag: r.tag, SHA: commit.ID, BeforeSHA: r.before,
		Status: domain.CICreated, Source: r.source, ConfigPath: path, CreatedAt: now, UpdatedAt: now, CommittedAt: &committed}
	if p.BeforeSHA == "" {
		p.BeforeSHA = domain.ZeroID
	}
	if r.userID != 0 {
		uid := r.userID
		p.UserID = &uid
	}
	cfg, err := s.p.Parser.Parse(ctx, src.Content, func(ctx context.Context, file string) ([]byte, error) {
		f, err := s.p.Reader.File(ctx, repo, commit.ID, file)
		if err != nil {
			return nil, err
		}
		return f.Content, nil
	})
	var ce *core.Error
	switch {
	case errors.As(err, &ce) && errors.Is(err, core.ErrInvalid):
		if !r.push && !r.saveErrors {
			return nil, refusal(ce.Msg)
		}
		// GitLab saves the pipeline failed, with the message (pipeline.drop).
		p.YAMLErrors = ce.Msg
		p.Status = domain.CIFailed
		p.FinishedAt = &now
		zero := 0
		p.Duration = &zero
		return p, s.store(ctx, p, nil, r)
	case err != nil:
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	if r.push && skipPattern.MatchString(commit.Message) {
		p.Status = domain.CISkipped
		return p, s.store(ctx, p, nil, r)
	}
	jobs, err := s.jobsFor(ctx, r, cfg, p)
	if err != nil {
		return nil, err
	}
	if len(jobs) == 0 {
		return nil, refusal(errNoJobs)
	}
	return p, s.store(ctx, p, jobs, r)
}

// store saves p with its jobs, publishes it and processes it, in one
// transaction.
func (s *Service) store(ctx context.Context, p *domain.Pipeline, jobs []domain.Job, r request) error {
	actor := r.userID
	return s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		if err := s.p.Pipelines.Create(ctx, p, jobs); err != nil {
			return fmt.Errorf("create pipeline: %w", err)
		}
		if r.record != nil {
			if err := r.record(ctx, p); err != nil {
				return err
			}
		}
		if err := s.p.Bus.Publish(ctx, domain.PipelineEvent{Pipeline: *p, Jobs: jobs, Actor: actor}); err != nil {
			return err
		}
		if len(jobs) == 0 {
			return nil
		}
		if err := s.process(ctx, p.ID, actor, -1); err != nil {
			return err
		}
		fresh, err := s.p.Pipelines.Get(ctx, p.ProjectID, p.ID)
		if err != nil {
			return fmt.Errorf("read created pipeline: %w", err)
		}
		*p = *fresh
		return nil
	})
}

// jobsFor are the jobs of cfg that run for r, as created jobs of p.
func (s *Service) jobsFor(ctx context.Context, r request, cfg *domain.PipelineConfig, p *domain.Pipeline) ([]domain.Job, error) {
	protected := false
	if !r.tag {
		rules, err := s.p.Protected.List(ctx, r.project.ID)
		if err != nil {
			return nil, fmt.Errorf("protected branches: %w", err)
		}
		_, protected = domain.Protection(rules, r.ref)
	}
	m := matcher{ref: r.ref, tag: r.tag, source: r.source, fullPath: func() string { return s.fullPath(ctx, r.project) }}
	var jobs []domain.Job
	for _, jc := range cfg.Jobs {
		if !m.runs(jc.Only, jc.Except) {
			continue
		}
		when := jc.When
		if when == "" {
			when = domain.WhenOnSuccess
		}
		stageIdx := 0
		for i, st := range cfg.Stages {
			if st == jc.Stage {
				stageIdx = i
				break
			}
		}
		jobs = append(jobs, domain.Job{
			Kind: domain.JobBuild, Name: jc.Name, Stage: jc.Stage, StageIdx: stageIdx, Status: domain.CICreated,
			Ref: r.ref, Tag: r.tag, SHA: p.SHA, Protected: protected, When: when, AllowFailure: jc.AllowFailure,
			UserID: p.UserID, Tags: jc.Tags, Spec: jc.Spec, CreatedAt: p.CreatedAt, UpdatedAt: p.CreatedAt,
		})
	}
	return jobs, nil
}

// fullPath is the project's namespace/path ("" when it cannot be read),
// for only/except patterns written ref@path.
func (s *Service) fullPath(ctx context.Context, p *domain.Project) string {
	ns, err := s.p.Namespaces.Get(ctx, p.NamespaceID)
	if err != nil {
		return ""
	}
	return ns.FullPath + "/" + p.Path
}

// CreateInput is POST /projects/:id/pipeline.
type CreateInput struct {
	Ref     string `param:"ref,required"`
	Invalid error  `param:"-"`
}

// Create runs a pipeline for the head of a branch or tag, as the caller
// (GitLab's POST /projects/:id/pipeline: source api, [ci skip] ignored,
// nothing saved on errors, which are 400 {"message":{"base":[...]}}).
func (s *Service) Create(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in CreateInput) (*domain.Pipeline, error) {
	t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref, access.ReadPipeline)
	if err != nil {
		return nil, err
	}
	if err := t.Require(access.CreatePipeline); err != nil {
		return nil, err
	}
	if in.Invalid != nil {
		return nil, in.Invalid
	}
	repo := domain.RepoPath(t.Project.ID)
	r := request{project: t.Project, source: domain.SourceAPI, ref: in.Ref, before: domain.ZeroID, userID: caller.UserID()}
	if b, err := s.p.Reader.Branch(ctx, repo, in.Ref); err == nil {
		r.sha = b.Commit.ID
		ok, err := s.mayUpdateBranch(ctx, t, in.Ref)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, refusal(fmt.Sprintf("Insufficient permissions for protected ref '%s'", in.Ref)).apiError()
		}
	} else if tg, err := s.p.Reader.Tag(ctx, repo, in.Ref); err == nil {
		r.sha, r.tag = tg.Commit.ID, true
	} else {
		return nil, refusal("Reference not found").apiError()
	}
	p, err := s.create(ctx, r)
	var rf refusal
	if errors.As(err, &rf) {
		return nil, rf.apiError()
	}
	return p, err
}

// mayUpdateBranch is GitLab's can_update_branch?: any developer on an
// unprotected branch, else whom the rule's push or merge level admits.
func (s *Service) mayUpdateBranch(ctx context.Context, t access.Target, branch string) (bool, error) {
	rules, err := s.p.Protected.List(ctx, t.Project.ID)
	if err != nil {
		return false, fmt.Errorf("protected branches: %w", err)
	}
	return t.MayUpdate(rules, branch), nil
}
