package hooks

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
)

// This file gathers what the payload builders in core/apijson need from
// the stores and the repository. Required data (the project) fails the
// build; optional data that is gone (a deleted assignee, an unreadable
// commit) degrades to nil, so a hook never rolls back the change it
// reports.

// projectInput is the project block of a payload.
func (s *Service) projectInput(ctx context.Context, id int64) (apijson.HookProjectInput, error) {
	p, err := s.p.Projects.Get(ctx, id)
	if err != nil {
		return apijson.HookProjectInput{}, fmt.Errorf("read project %d: %w", id, err)
	}
	ns, err := s.p.Namespaces.Get(ctx, p.NamespaceID)
	if err != nil {
		return apijson.HookProjectInput{}, fmt.Errorf("read namespace of project %d: %w", id, err)
	}
	full := ns.FullPath + "/" + p.Path
	urls := apijson.ProjectURLs(s.p.Config.BaseURL(), s.p.Config.SSHCloneBase(), full)
	return apijson.HookProjectInput{
		Project: *p, NamespaceName: ns.Name, FullPath: full,
		WebURL: urls.Web, SSHURL: urls.SSH, HTTPURL: urls.HTTP,
	}, nil
}

// actor is the user who made a change; a user deleted meanwhile keeps
// its id and nothing else.
func (s *Service) actor(ctx context.Context, id int64) (domain.User, error) {
	u, err := s.optionalUser(ctx, &id)
	if err != nil {
		return domain.User{}, err
	}
	if u == nil {
		return domain.User{ID: id}, nil
	}
	return *u, nil
}

// optionalUser reads user *id, nil for no id or a user that is gone.
func (s *Service) optionalUser(ctx context.Context, id *int64) (*domain.User, error) {
	if id == nil || *id == 0 {
		return nil, nil
	}
	u, err := s.p.Users.Get(ctx, *id)
	if errors.Is(err, core.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read user %d: %w", *id, err)
	}
	return u, nil
}

// labels resolves label names of a project, in the item's order; names
// without a label (deleted meanwhile) are left out.
func (s *Service) labels(ctx context.Context, projectID int64, names []string) ([]domain.Label, error) {
	if len(names) == 0 {
		return nil, nil
	}
	all, err := s.p.Labels.List(ctx, projectID)
	if err != nil {
		return nil, fmt.Errorf("read labels of project %d: %w", projectID, err)
	}
	byName := make(map[string]domain.Label, len(all))
	for _, l := range all {
		byName[l.Name] = l
	}
	out := make([]domain.Label, 0, len(names))
	for _, n := range names {
		if l, ok := byName[n]; ok {
			out = append(out, l)
		}
	}
	return out, nil
}

// commit reads a commit of a project's repository, nil when it cannot be
// read (a pruned or unknown SHA): payloads send null then.
func (s *Service) commit(ctx context.Context, projectID int64, sha string) *domain.Commit {
	if sha == "" || sha == domain.ZeroID {
		return nil
	}
	c, err := s.p.Reader.Commit(ctx, domain.RepoPath(projectID), sha)
	if err != nil {
		return nil
	}
	return &c
}

// pushInput is the payload input of one ref update. Each of the commits
// sent gets its changed paths from its diff against its first parent;
// without commits (system hooks) there are none and the count is 0.
func (s *Service) pushInput(ctx context.Context, ev domain.PushEvent, commits bool) (apijson.PushHookInput, error) {
	proj, err := s.projectInput(ctx, ev.ProjectID)
	if err != nil {
		return apijson.PushHookInput{}, err
	}
	pusher, err := s.actor(ctx, ev.Actor)
	if err != nil {
		return apijson.PushHookInput{}, err
	}
	repo := domain.RepoPath(ev.ProjectID)
	in := apijson.PushHookInput{Project: proj, Pusher: pusher, Ref: ev.Ref, Before: ev.Before, After: ev.After,
		TotalCommits: ev.TotalCommits}
	if name, ok := strings.CutPrefix(ev.Ref, domain.TagPrefix); ok && ev.After != domain.ZeroID {
		// The tag may have moved again since: only trust it while it is ours.
		if tag, err := s.p.Reader.Tag(ctx, repo, name); err == nil && tag.TargetID == ev.After {
			in.CheckoutSHA = tag.Commit.ID
			if tag.Message != nil {
				in.Message = *tag.Message
			}
		}
	}
	if !commits {
		in.Commits, in.TotalCommits = nil, 0
		return in, nil
	}
	sent := ev.Commits[:min(len(ev.Commits), apijson.PushHookCommitLimit)]
	in.Commits = make([]apijson.PushHookCommit, 0, len(sent))
	for _, c := range sent {
		in.Commits = append(in.Commits, s.pushCommit(ctx, repo, c))
	}
	if in.TotalCommits == 0 {
		in.TotalCommits = len(ev.Commits)
	}
	return in, nil
}

// pushCommit classifies a commit's changed paths as GitLab's
// Commit#repo_changes does; an unreadable diff sends empty lists.
func (s *Service) pushCommit(ctx context.Context, repo string, c domain.PushCommit) apijson.PushHookCommit {
	out := apijson.PushHookCommit{PushCommit: c}
	diffs, err := s.p.Reader.Diff(ctx, repo, "", c.ID)
	if err != nil {
		return out
	}
	for _, d := range diffs {
		switch {
		case d.DeletedFile:
			out.Removed = append(out.Removed, d.OldPath)
		case d.NewFile || d.RenamedFile:
			out.Added = append(out.Added, d.NewPath)
		default:
			out.Modified = append(out.Modified, d.NewPath)
		}
	}
	return out
}

// issueInput is the payload input of one change of an issue.
func (s *Service) issueInput(ctx context.Context, is domain.Issue, actorID int64, action string) (apijson.IssueHookInput, error) {
	proj, err := s.projectInput(ctx, is.ProjectID)
	if err != nil {
		return apijson.IssueHookInput{}, err
	}
	actor, err := s.actor(ctx, actorID)
	if err != nil {
		return apijson.IssueHookInput{}, err
	}
	assignee, err := s.optionalUser(ctx, is.AssigneeID)
	if err != nil {
		return apijson.IssueHookInput{}, err
	}
	labels, err := s.labels(ctx, is.ProjectID, is.Labels)
	if err != nil {
		return apijson.IssueHookInput{}, err
	}
	return apijson.IssueHookInput{Project: proj, Actor: actor, Issue: is, Assignee: assignee, Labels: labels, Action: action}, nil
}

// mergeRequestParts are what both the merge request payload and a note's
// merge_request block embed.
type mergeRequestParts struct {
	source     *apijson.HookProjectInput
	lastCommit *domain.Commit
	assignee   *domain.User
}

func (s *Service) mergeRequestParts(ctx context.Context, m domain.MergeRequest) (mergeRequestParts, error) {
	var out mergeRequestParts
	if m.SourceProjectID != 0 && m.SourceProjectID != m.TargetProjectID {
		// A fork deleted since leaves the source block as the target's.
		src, err := s.projectInput(ctx, m.SourceProjectID)
		switch {
		case err == nil:
			out.source = &src
		case !errors.Is(err, core.ErrNotFound):
			return out, err
		}
	}
	sourceProject := m.SourceProjectID
	if sourceProject == 0 {
		sourceProject = m.ProjectID
	}
	out.lastCommit = s.commit(ctx, sourceProject, m.SourceSHA)
	var err error
	out.assignee, err = s.optionalUser(ctx, m.AssigneeID)
	return out, err
}

// mergeRequestInput is the payload input of one change of a merge request.
func (s *Service) mergeRequestInput(ctx context.Context, m domain.MergeRequest, actorID int64, action string) (apijson.MergeRequestHookInput, error) {
	proj, err := s.projectInput(ctx, m.ProjectID)
	if err != nil {
		return apijson.MergeRequestHookInput{}, err
	}
	actor, err := s.actor(ctx, actorID)
	if err != nil {
		return apijson.MergeRequestHookInput{}, err
	}
	parts, err := s.mergeRequestParts(ctx, m)
	if err != nil {
		return apijson.MergeRequestHookInput{}, err
	}
	labels, err := s.labels(ctx, m.ProjectID, m.Labels)
	if err != nil {
		return apijson.MergeRequestHookInput{}, err
	}
	return apijson.MergeRequestHookInput{Project: proj, Source: parts.source, Actor: actor, MergeRequest: m,
		LastCommit: parts.lastCommit, Assignee: parts.assignee, Labels: labels, Action: action}, nil
}

// noteInput is the payload input of a note on an issue, merge request or
// snippet of its project. A noteable gone meanwhile sends no block.
func (s *Service) noteInput(ctx context.Context, n domain.Note) (apijson.NoteHookInput, error) {
	pid := *n.ProjectID
	proj, err := s.projectInput(ctx, pid)
	if err != nil {
		return apijson.NoteHookInput{}, err
	}
	author, err := s.actor(ctx, n.AuthorID)
	if err != nil {
		return apijson.NoteHookInput{}, err
	}
	in := apijson.NoteHookInput{Project: proj, Author: author, Note: n}
	gone := func(err error) error {
		if errors.Is(err, core.ErrNotFound) {
			return nil
		}
		return fmt.Errorf("read %s %d of note %d: %w", n.NoteableType, n.NoteableID, n.ID, err)
	}
	switch n.NoteableType {
	case domain.TargetIssue:
		list, err := s.p.Issues.GetMany(ctx, []int64{n.NoteableID})
		if err != nil {
			return in, gone(err)
		}
		if len(list) == 1 {
			in.Issue = &list[0]
		}
	case domain.TargetMergeRequest:
		m, err := s.p.MergeRequests.GetByID(ctx, n.NoteableID)
		if err != nil {
			return in, gone(err)
		}
		parts, err := s.mergeRequestParts(ctx, *m)
		if err != nil {
			return in, err
		}
		in.MergeRequest = &apijson.NoteHookMergeRequestInput{MergeRequest: *m, Source: parts.source,
			LastCommit: parts.lastCommit, Assignee: parts.assignee}
	case domain.TargetSnippet:
		sn, err := s.p.Snippets.Get(ctx, pid, n.NoteableID)
		if err != nil {
			return in, gone(err)
		}
		in.Snippet = sn
	}
	return in, nil
}

// commitNoteInput is the payload input of a comment on a commit: GitLab
// keeps those as notes with noteable_type "Commit".
func (s *Service) commitNoteInput(ctx context.Context, c domain.CommitComment) (apijson.NoteHookInput, error) {
	proj, err := s.projectInput(ctx, c.ProjectID)
	if err != nil {
		return apijson.NoteHookInput{}, err
	}
	author, err := s.actor(ctx, c.AuthorID)
	if err != nil {
		return apijson.NoteHookInput{}, err
	}
	pid := c.ProjectID
	n := domain.Note{ID: c.ID, ProjectID: &pid, NoteableType: "Commit", AuthorID: c.AuthorID, Body: c.Note,
		CreatedAt: c.CreatedAt, UpdatedAt: c.CreatedAt}
	commit := s.commit(ctx, c.ProjectID, c.CommitID)
	if commit == nil {
		// The payload still names the commit it is on.
		commit = &domain.Commit{ID: c.CommitID}
	}
	return apijson.NoteHookInput{Project: proj, Author: author, Note: n, Commit: commit}, nil
}

// pipelineInput is the payload input of a pipeline with every one of its
// jobs, retried ones included.
func (s *Service) pipelineInput(ctx context.Context, p domain.Pipeline) (apijson.PipelineHookInput, error) {
	proj, err := s.projectInput(ctx, p.ProjectID)
	if err != nil {
		return apijson.PipelineHookInput{}, err
	}
	user, err := s.optionalUser(ctx, p.UserID)
	if err != nil {
		return apijson.PipelineHookInput{}, err
	}
	jobs, err := s.p.Jobs.OfPipeline(ctx, p.ID)
	if err != nil {
		return apijson.PipelineHookInput{}, fmt.Errorf("read jobs of pipeline %d: %w", p.ID, err)
	}
	users := map[int64]*domain.User{}
	in := apijson.PipelineHookInput{Project: proj, Pipeline: p, User: user, Commit: s.commit(ctx, p.ProjectID, p.SHA)}
	for _, j := range jobs {
		var u *domain.User
		if j.UserID != nil {
			var ok bool
			if u, ok = users[*j.UserID]; !ok {
				if u, err = s.optionalUser(ctx, j.UserID); err != nil {
					return in, err
				}
				users[*j.UserID] = u
			}
		}
		in.Jobs = append(in.Jobs, apijson.PipelineHookJob{Job: j, User: u})
	}
	return in, nil
}

// jobInput is the payload input of a job with its pipeline.
func (s *Service) jobInput(ctx context.Context, j domain.Job) (apijson.JobHookInput, error) {
	proj, err := s.projectInput(ctx, j.ProjectID)
	if err != nil {
		return apijson.JobHookInput{}, err
	}
	p, err := s.p.Pipelines.GetByID(ctx, j.PipelineID)
	if err != nil {
		return apijson.JobHookInput{}, fmt.Errorf("read pipeline %d of job %d: %w", j.PipelineID, j.ID, err)
	}
	user, err := s.optionalUser(ctx, j.UserID)
	if err != nil {
		return apijson.JobHookInput{}, err
	}
	in := apijson.JobHookInput{Project: proj, Job: j, Pipeline: *p, User: user, Now: s.now()}
	if c := s.commit(ctx, p.ProjectID, p.SHA); c != nil {
		in.Commit = *c
	}
	return in, nil
}
