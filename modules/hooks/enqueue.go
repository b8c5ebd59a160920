package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
)

// subscribe routes each project event hooks receive. In the publisher's
// transaction it only asks the router whether any hook wants the event
// (most projects have none) and, if one does, keeps the event as one
// small row (deferTx); the delivery nodes fan it out afterwards with the
// handlers below, which route it again, build GitLab's payload and queue
// one delivery per hook (fanout.go).
func (s *Service) subscribe() {
	deferTx(s, s.pushHooks, s.onPush)
	deferTx(s, s.issueHooks, s.onIssue)
	deferTx(s, s.mergeRequestHooks, s.onMergeRequest)
	deferTx(s, s.noteEventHooks, s.onNote)
	deferTx(s, s.commitCommentHooks, s.onCommitComment)
	deferTx(s, s.pipelineHooks, s.onPipeline)
	deferTx(s, s.jobHooks, s.onJob)
}

// enqueue marshals payload once and queues it for each hook, in ctx's
// transaction; the workers of this node are woken once it commits (the
// other nodes find the rows when they poll).
func (s *Service) enqueue(ctx context.Context, hooks []int64, event string, payload any) error {
	body, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("marshal %s: %w", event, err)
	}
	d := domain.HookDelivery{Event: event, Payload: string(body), MaxAttempts: s.p.Config.Webhooks.MaxAttempts}
	n, err := s.p.Deliveries.EnqueueFor(ctx, hooks, d)
	if err != nil {
		return fmt.Errorf("queue %s for %d hooks: %w", event, len(hooks), err)
	}
	if n > 0 {
		s.p.Tx.AfterCommit(ctx, func(context.Context) { s.nudge() })
	}
	return nil
}

// hooksFor is the router's answer for one project and kind.
func (s *Service) hooksFor(ctx context.Context, projectID int64, kind domain.HookEventKind) ([]int64, error) {
	ids, err := s.p.Router.HooksFor(ctx, projectID, kind)
	if err != nil {
		return nil, fmt.Errorf("hooks of project %d for %s: %w", projectID, kind, err)
	}
	return ids, nil
}

// pushKind is the hook event kind and X-Gitlab-Event of a ref update.
func pushKind(ref string) (domain.HookEventKind, string) {
	if strings.HasPrefix(ref, domain.TagPrefix) {
		return domain.HookTagPush, domain.HookEventTagPush
	}
	return domain.HookPush, domain.HookEventPush
}

// onPush sends a push or tag push to the project's hooks and to the
// system hooks that want it. System hooks get GitLab 9.x's system push
// data (GitPushService#build_push_data_system_hook): no commits, an
// event_name, under X-Gitlab-Event "System Hook".
func (s *Service) onPush(ctx context.Context, ev domain.PushEvent) error {
	kind, event := pushKind(ev.Ref)
	ids, err := s.pushHooks(ctx, ev)
	if err != nil || len(ids) == 0 {
		return err
	}
	// Project 0 has no hooks of its own: the router answers with the
	// system hooks alone.
	system, err := s.hooksFor(ctx, 0, kind)
	if err != nil {
		return err
	}
	project := slices.DeleteFunc(slices.Clone(ids), func(id int64) bool { return slices.Contains(system, id) })
	system = slices.DeleteFunc(system, func(id int64) bool { return !slices.Contains(ids, id) })
	if len(project) > 0 {
		in, err := s.pushInput(ctx, ev, true)
		if err != nil {
			return fmt.Errorf("push hook data: %w", err)
		}
		if err := s.enqueue(ctx, project, event, apijson.PushPayload(in)); err != nil {
			return err
		}
	}
	if len(system) > 0 {
		in, err := s.pushInput(ctx, ev, false)
		if err != nil {
			return fmt.Errorf("system push hook data: %w", err)
		}
		p := apijson.PushPayload(in)
		if err := s.enqueue(ctx, system, domain.HookEventSystem, systemPush{EventName: p.ObjectKind, PushHook: p}); err != nil {
			return err
		}
	}
	return nil
}

// pushHooks are the hooks of a push: the project's and the system hooks
// that want its kind.
func (s *Service) pushHooks(ctx context.Context, ev domain.PushEvent) ([]int64, error) {
	kind, _ := pushKind(ev.Ref)
	return s.hooksFor(ctx, ev.ProjectID, kind)
}

// systemPush is the push data system hooks get: the push payload with
// its event_name.
type systemPush struct {
	EventName string `json:"event_name"`
	apijson.PushHook
}

// issueActions map the domain's actions to the issue hook's.
var issueActions = map[string]string{
	domain.ActionCreated: apijson.IssueActionOpen, domain.ActionUpdated: apijson.IssueActionUpdate,
	domain.ActionClosed: apijson.IssueActionClose, domain.ActionReopened: apijson.IssueActionReopen,
}

// issueKind is the hooks an issue's events go to: a confidential issue
// only to the hooks that asked for confidential issues (GitLab's
// confidential_issue_hooks), never to the plain issue hooks.
func issueKind(is domain.Issue) domain.HookEventKind {
	if is.Confidential {
		return domain.HookConfidentialIssues
	}
	return domain.HookIssues
}

// issueHooks are the hooks of an issue event (none for an action hooks
// do not report).
func (s *Service) issueHooks(ctx context.Context, ev domain.IssueEvent) ([]int64, error) {
	if _, ok := issueActions[ev.Action]; !ok {
		return nil, nil
	}
	return s.hooksFor(ctx, ev.Issue.ProjectID, issueKind(ev.Issue))
}

func (s *Service) onIssue(ctx context.Context, ev domain.IssueEvent) error {
	ids, err := s.issueHooks(ctx, ev)
	if err != nil || len(ids) == 0 {
		return err
	}
	in, err := s.issueInput(ctx, ev.Issue, ev.Actor, issueActions[ev.Action])
	if err != nil {
		return fmt.Errorf("issue hook data: %w", err)
	}
	return s.enqueue(ctx, ids, domain.HookEventIssue, apijson.IssuePayload(in))
}

// mergeRequestActions map the domain's actions to the merge request
// hook's.
var mergeRequestActions = map[string]string{
	domain.ActionCreated: apijson.MergeRequestActionOpen, domain.ActionUpdated: apijson.MergeRequestActionUpdate,
	domain.ActionClosed: apijson.MergeRequestActionClose, domain.ActionReopened: apijson.MergeRequestActionReopen,
	domain.ActionMerged: apijson.MergeRequestActionMerge,
}

// mergeRequestHooks are the hooks of a merge request event (none for an
// action hooks do not report).
func (s *Service) mergeRequestHooks(ctx context.Context, ev domain.MergeRequestEvent) ([]int64, error) {
	if _, ok := mergeRequestActions[ev.Action]; !ok {
		return nil, nil
	}
	return s.hooksFor(ctx, ev.MergeRequest.ProjectID, domain.HookMergeRequests)
}

func (s *Service) onMergeRequest(ctx context.Context, ev domain.MergeRequestEvent) error {
	ids, err := s.mergeRequestHooks(ctx, ev)
	if err != nil || len(ids) == 0 {
		return err
	}
	in, err := s.mergeRequestInput(ctx, ev.MergeRequest, ev.Actor, mergeRequestActions[ev.Action])
	if err != nil {
		return fmt.Errorf("merge request hook data: %w", err)
	}
	return s.enqueue(ctx, ids, domain.HookEventMergeRequest, apijson.MergeRequestPayload(in))
}

// noteHooks are the hooks a note goes to. GitLab 9.x skips system notes
// and notes of no project (personal snippets). A note on a confidential
// issue embeds the issue, so it goes only to the note hooks that also
// receive confidential issues (later GitLab versions give such notes a
// confidential_note_events flag of their own; 9.x leaked them to every
// note hook).
func (s *Service) noteHooks(ctx context.Context, projectID int64, confidential bool) ([]int64, error) {
	ids, err := s.hooksFor(ctx, projectID, domain.HookNotes)
	if err != nil || len(ids) == 0 || !confidential {
		return ids, err
	}
	allowed, err := s.hooksFor(ctx, projectID, domain.HookConfidentialIssues)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(ids, func(id int64) bool { return !slices.Contains(allowed, id) }), nil
}

// noteEventHooks are the hooks of a note (none for system notes and notes
// of no project). NoteEvent.Confidential also marks notes on snippets
// that are not public (for the feed); only a confidential issue's notes
// are kept from hooks.
func (s *Service) noteEventHooks(ctx context.Context, ev domain.NoteEvent) ([]int64, error) {
	n := ev.Note
	if n.System || n.ProjectID == nil {
		return nil, nil
	}
	return s.noteHooks(ctx, *n.ProjectID, ev.Confidential && n.NoteableType == domain.TargetIssue)
}

func (s *Service) onNote(ctx context.Context, ev domain.NoteEvent) error {
	ids, err := s.noteEventHooks(ctx, ev)
	if err != nil || len(ids) == 0 {
		return err
	}
	in, err := s.noteInput(ctx, ev.Note)
	if err != nil {
		return fmt.Errorf("note hook data: %w", err)
	}
	return s.enqueue(ctx, ids, domain.HookEventNote, apijson.NotePayload(in))
}

func (s *Service) commitCommentHooks(ctx context.Context, ev domain.CommitCommentCreated) ([]int64, error) {
	return s.noteHooks(ctx, ev.Comment.ProjectID, false)
}

func (s *Service) onCommitComment(ctx context.Context, ev domain.CommitCommentCreated) error {
	ids, err := s.commitCommentHooks(ctx, ev)
	if err != nil || len(ids) == 0 {
		return err
	}
	in, err := s.commitNoteInput(ctx, ev.Comment)
	if err != nil {
		return fmt.Errorf("commit note hook data: %w", err)
	}
	return s.enqueue(ctx, ids, domain.HookEventNote, apijson.NotePayload(in))
}

// onPipeline sends each change of a pipeline's status, as GitLab's
// pipeline state machine does after every transition but a loopback; a
// pipeline stored as created has made no transition yet.
func (s *Service) pipelineHooks(ctx context.Context, ev domain.PipelineEvent) ([]int64, error) {
	p := ev.Pipeline
	if p.Status == ev.Previous || (ev.Previous == "" && p.Status == domain.CICreated) {
		return nil, nil
	}
	return s.hooksFor(ctx, p.ProjectID, domain.HookPipelines)
}

func (s *Service) onPipeline(ctx context.Context, ev domain.PipelineEvent) error {
	ids, err := s.pipelineHooks(ctx, ev)
	if err != nil || len(ids) == 0 {
		return err
	}
	in, err := s.pipelineInput(ctx, ev.Pipeline)
	if err != nil {
		return fmt.Errorf("pipeline hook data: %w", err)
	}
	return s.enqueue(ctx, ids, domain.HookEventPipeline, apijson.PipelinePayload(in))
}

// jobHookStatuses are the statuses whose reaching sends a job hook, as
// GitLab's build state machine does: when it starts running and when it
// finishes. Commit statuses are no builds and send none.
var jobHookStatuses = map[domain.CIStatus]bool{
	domain.CIRunning: true, domain.CISuccess: true, domain.CIFailed: true, domain.CICanceled: true,
}

func (s *Service) jobHooks(ctx context.Context, ev domain.JobEvent) ([]int64, error) {
	j := ev.Job
	if j.Kind != domain.JobBuild || j.Status == ev.Previous || !jobHookStatuses[j.Status] || j.PipelineID == 0 {
		return nil, nil
	}
	return s.hooksFor(ctx, j.ProjectID, domain.HookJobs)
}

func (s *Service) onJob(ctx context.Context, ev domain.JobEvent) error {
	ids, err := s.jobHooks(ctx, ev)
	if err != nil || len(ids) == 0 {
		return err
	}
	in, err := s.jobInput(ctx, ev.Job)
	if err != nil {
		return fmt.Errorf("job hook data: %w", err)
	}
	return s.enqueue(ctx, ids, domain.HookEventJob, apijson.JobPayload(in))
}
