package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
)

// triggers are the events a project hook can be tested with: its flags.
var triggers = map[domain.HookEventKind]bool{
	domain.HookPush: true, domain.HookTagPush: true, domain.HookIssues: true, domain.HookConfidentialIssues: true,
	domain.HookMergeRequests: true, domain.HookNotes: true, domain.HookJobs: true, domain.HookPipelines: true,
	domain.HookWikiPages: true,
}

// errTrigger is Grape's answer for a trigger outside the hook's flags.
var errTrigger = &core.Error{Kind: core.ErrInvalid, Param: true, Msg: "trigger does not have a valid value"}

// TestResult is what a hook test got back from the hook.
type TestResult struct {
	Delivery domain.HookDelivery
	// OK is a 2xx answer.
	OK bool
	// Message is GitLab's result message when it failed: the response
	// body, or why no response came.
	Message string
}

// sample is one trigger's sample payload and X-Gitlab-Event.
type sample struct {
	event   string
	payload any
}

// Test sends hook id a sample of trigger's event at once, as later GitLab
// versions' POST /projects/:id/hooks/:hook_id/test/:trigger does
// (TestHooks::ProjectService): the project's recent commits, or its
// latest issue, merge request, note, job or pipeline. A project without
// one is GitLab's 422 "Ensure the project has ...". The attempt is kept
// with the hook's deliveries.
func (s *Service) Test(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, id HookID, trigger string) (*TestResult, error) {
	t, err := s.target(ctx, caller, ref)
	if err != nil {
		return nil, err
	}
	if id.Invalid != nil {
		return nil, id.Invalid
	}
	kind := domain.HookEventKind(trigger)
	if !triggers[kind] {
		return nil, errTrigger
	}
	h, err := s.load(ctx, t, id)
	if err != nil {
		return nil, err
	}
	smp, err := s.sample(ctx, caller.User, t.Project.ID, kind)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(smp.payload)
	if err != nil {
		return nil, fmt.Errorf("marshal %s: %w", smp.event, err)
	}
	target := domain.HookTarget{URL: h.URL, Token: h.Token, VerifyTLS: h.EnableSSLVerification}
	d, err := s.sendNow(ctx, h.ID, target, smp.event, body)
	if err != nil {
		return nil, fmt.Errorf("test hook %d: %w", h.ID, err)
	}
	out := &TestResult{Delivery: d, OK: d.LastError == "" && d.LastStatus >= 200 && d.LastStatus < 300}
	// GitLab's message is the response's body, or the error when none
	// came.
	switch {
	case out.OK:
	case d.LastStatus == 0:
		out.Message = d.LastError
	case d.LastResponse != "":
		out.Message = d.LastResponse
	default:
		out.Message = fmt.Sprintf("Hook executed successfully but returned HTTP %d", d.LastStatus)
	}
	return out, nil
}

// noData is GitLab's refusal of a test without sample data.
func noData(msg string) error { return core.Unprocessable(msg) }

// sample builds trigger's sample payload from the project's data.
func (s *Service) sample(ctx context.Context, user *domain.User, projectID int64, kind domain.HookEventKind) (sample, error) {
	actor := domain.User{}
	if user != nil {
		actor = *user
	}
	switch kind {
	case domain.HookPush, domain.HookTagPush:
		in, err := s.samplePush(ctx, actor, projectID)
		if err != nil {
			return sample{}, err
		}
		// GitLab sends its push sample for tag pushes too, under the tag
		// push event.
		event := domain.HookEventPush
		if kind == domain.HookTagPush {
			event = domain.HookEventTagPush
		}
		return sample{event, apijson.PushPayload(in)}, nil
	case domain.HookIssues, domain.HookConfidentialIssues:
		list, _, err := s.p.Issues.List(ctx, domain.IssueFilter{ProjectID: projectID, Viewer: domain.IssueViewer{All: true},
			Page: domain.Page{Page: 1, PerPage: 1}})
		if err != nil {
			return sample{}, fmt.Errorf("latest issue: %w", err)
		}
		if len(list) == 0 {
			return sample{}, noData("Ensure the project has issues.")
		}
		// GitLab's to_hook_data of a test names no action.
		in, err := s.issueInput(ctx, list[0], actor.ID, "")
		if err != nil {
			return sample{}, err
		}
		in.Actor = actor
		return sample{domain.HookEventIssue, apijson.IssuePayload(in)}, nil
	case domain.HookMergeRequests:
		m, err := s.latestMergeRequest(ctx, projectID)
		if err != nil {
			return sample{}, err
		}
		if m == nil {
			return sample{}, noData("Ensure the project has merge requests.")
		}
		in, err := s.mergeRequestInput(ctx, *m, actor.ID, "")
		if err != nil {
			return sample{}, err
		}
		in.Actor = actor
		return sample{domain.HookEventMergeRequest, apijson.MergeRequestPayload(in)}, nil
	case domain.HookNotes:
		n, err := s.latestNote(ctx, projectID)
		if err != nil {
			return sample{}, err
		}
		if n == nil {
			return sample{}, noData("Ensure the project has notes.")
		}
		in, err := s.noteInput(ctx, *n)
		if err != nil {
			return sample{}, err
		}
		return sample{domain.HookEventNote, apijson.NotePayload(in)}, nil
	case domain.HookJobs:
		jobs, _, err := s.p.Jobs.List(ctx, domain.JobFilter{ProjectID: projectID, Kind: domain.JobBuild, Page: domain.Page{Page: 1, PerPage: 1}})
		if err != nil {
			return sample{}, fmt.Errorf("latest job: %w", err)
		}
		if len(jobs) == 0 {
			return sample{}, noData("Ensure the project has CI jobs.")
		}
		in, err := s.jobInput(ctx, jobs[0])
		if err != nil {
			return sample{}, err
		}
		return sample{domain.HookEventJob, apijson.JobPayload(in)}, nil
	case domain.HookPipelines:
		list, _, err := s.p.Pipelines.List(ctx, domain.PipelineFilter{ProjectID: projectID, Page: domain.Page{Page: 1, PerPage: 1}})
		if err != nil {
			return sample{}, fmt.Errorf("latest pipeline: %w", err)
		}
		if len(list) == 0 {
			return sample{}, noData("Ensure the project has CI pipelines.")
		}
		in, err := s.pipelineInput(ctx, list[0])
		if err != nil {
			return sample{}, err
		}
		return sample{domain.HookEventPipeline, apijson.PipelinePayload(in)}, nil
	}
	// wiki_page_events: Hearth has no wikis.
	return sample{}, noData("Ensure the wiki is enabled and has pages.")
}

// samplePush is GitLab's Push.build_sample: the default branch's last
// three commits, as if they had just been pushed.
func (s *Service) samplePush(ctx context.Context, actor domain.User, projectID int64) (apijson.PushHookInput, error) {
	const none = "Ensure the project has at least one commit."
	repo := domain.RepoPath(projectID)
	proj, err := s.projectInput(ctx, projectID)
	if err != nil {
		return apijson.PushHookInput{}, err
	}
	branch := proj.Project.DefaultBranch
	if branch == "" {
		return apijson.PushHookInput{}, noData(none)
	}
	commits, err := s.p.Reader.Log(ctx, repo, domain.LogQuery{Ref: branch, Limit: 3})
	if errors.Is(err, core.ErrNotFound) || (err == nil && len(commits) == 0) {
		return apijson.PushHookInput{}, noData(none)
	}
	if err != nil {
		return apijson.PushHookInput{}, fmt.Errorf("last commits of %s: %w", branch, err)
	}
	in := apijson.PushHookInput{Project: proj, Pusher: actor, Ref: domain.BranchPrefix + branch,
		Before: commits[len(commits)-1].ID, After: commits[0].ID}
	for _, c := range commits {
		pc := domain.PushCommit{ID: c.ID, Message: c.Message, Timestamp: c.Committer.When, Author: c.Author}
		in.Commits = append(in.Commits, s.pushCommit(ctx, repo, pc))
	}
	return in, nil
}

func (s *Service) latestMergeRequest(ctx context.Context, projectID int64) (*domain.MergeRequest, error) {
	list, _, err := s.p.MergeRequests.List(ctx, domain.MergeRequestFilter{ProjectID: projectID, Page: domain.Page{Page: 1, PerPage: 1}})
	if err != nil {
		return nil, fmt.Errorf("latest merge request: %w", err)
	}
	if len(list) == 0 {
		return nil, nil
	}
	return &list[0], nil
}

// latestNote is the newest comment on the project's latest issues and
// merge requests (the stores list notes by noteable, not by project).
func (s *Service) latestNote(ctx context.Context, projectID int64) (*domain.Note, error) {
	const recent = 5
	type noteable struct {
		typ string
		id  int64
	}
	var candidates []noteable
	issues, _, err := s.p.Issues.List(ctx, domain.IssueFilter{ProjectID: projectID, Viewer: domain.IssueViewer{All: true},
		OrderBy: "updated_at", Page: domain.Page{Page: 1, PerPage: recent}})
	if err != nil {
		return nil, fmt.Errorf("latest issues: %w", err)
	}
	for _, is := range issues {
		candidates = append(candidates, noteable{domain.TargetIssue, is.ID})
	}
	mrs, _, err := s.p.MergeRequests.List(ctx, domain.MergeRequestFilter{ProjectID: projectID, OrderBy: "updated_at",
		Page: domain.Page{Page: 1, PerPage: recent}})
	if err != nil {
		return nil, fmt.Errorf("latest merge requests: %w", err)
	}
	for _, m := range mrs {
		candidates = append(candidates, noteable{domain.TargetMergeRequest, m.ID})
	}
	var best *domain.Note
	for _, c := range candidates {
		notes, _, err := s.p.Notes.Query(ctx, domain.NoteQuery{NoteableType: c.typ, NoteableID: c.id, Descending: true,
			Page: domain.Page{Page: 1, PerPage: 20}})
		if err != nil {
			return nil, fmt.Errorf("notes of %s %d: %w", c.typ, c.id, err)
		}
		for i := range notes {
			n := notes[i]
			if n.System || n.ProjectID == nil {
				continue
			}
			if best == nil || n.CreatedAt.After(best.CreatedAt) || (n.CreatedAt.Equal(best.CreatedAt) && n.ID > best.ID) {
				best = &n
			}
			break
		}
	}
	return best, nil
}
