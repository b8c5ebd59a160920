package notes

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
)

// Params are the service's dependencies, provided by the app.
type Params struct {
	fx.In
	Notes         ports.NoteStore
	Awards        ports.AwardStore
	Issues        ports.IssueStore
	MergeRequests ports.MergeRequestStore
	Snippets      ports.SnippetStore
	Todos         ports.TodoStore
	Users         ports.UserStore
	Tx            ports.TxManager
	Bus           ports.EventBus
	Clock         ports.Clock
	Policy        *access.Policy
	Log           *zap.Logger `optional:"true"`
}

// Service holds the notes use cases.
type Service struct {
	p   Params
	log *zap.Logger
}

// NewService builds the service.
func NewService(p Params) *Service {
	log := p.Log
	if log == nil {
		log = zap.NewNop()
	}
	return &Service{p: p, log: log}
}

// now is truncated to milliseconds, the precision clients see.
func (s *Service) now() time.Time { return s.p.Clock.Now().UTC().Truncate(time.Millisecond) }

// kind is one noteable kind: where its routes live and what it is called.
type kind struct {
	segment string // under /projects/{id}
	param   string // the noteable's path parameter
	what    string // its 404 name
	typ     string // noteable_type
}

var kinds = []kind{
	{segment: "issues", param: "issue_iid", what: "Issue", typ: domain.TargetIssue},
	{segment: "merge_requests", param: "merge_request_iid", what: "Merge Request", typ: domain.TargetMergeRequest},
	{segment: "snippets", param: "snippet_id", what: "Snippet", typ: domain.TargetSnippet},
}

// target is a project as the caller sees it.
type target struct {
	caller  *domain.Caller
	project *domain.Project
	rights  access.Rights
}

// noteable is an issue, merge request or snippet the caller may read.
type noteable struct {
	kind         kind
	id           int64
	iid          *int64 // issues and merge requests
	projectID    int64
	confidential bool // its notes' events are (NoteEvent.Confidential)
}

// project resolves {id}; a missing or unreadable project is its 404.
func (s *Service) project(r *http.Request) (target, error) {
	ref, err := httpx.RefParam(r, "id")
	if err != nil {
		return target{}, err
	}
	caller := httpx.CallerOf(r)
	p, rights, err := s.p.Policy.ProjectByRef(r.Context(), caller, ref)
	if err != nil {
		return target{}, err
	}
	return target{caller: caller, project: p, rights: rights}, nil
}

// noteable loads the kind's noteable named by the path. A project with
// the feature off is the project's 404; a noteable missing or hidden from
// the caller (confidential issues, private snippets, merge requests of
// private projects for guests) is the noteable's 404.
func (s *Service) noteable(r *http.Request, t target, k kind) (*noteable, error) {
	key, err := httpx.IDParam(r, k.param, k.what)
	if err != nil {
		return nil, err
	}
	ctx, p := r.Context(), t.project
	n := &noteable{kind: k, projectID: p.ID}
	switch k.typ {
	case domain.TargetIssue:
		if !access.CanReadIssues(p, t.rights) {
			return nil, core.NotFound("Project")
		}
		is, err := s.p.Issues.Get(ctx, p.ID, key)
		if err != nil {
			return nil, notFound(err, k.what, "read issue")
		}
		if !access.CanReadIssue(t.caller, p, t.rights, is) {
			return nil, core.NotFound(k.what)
		}
		n.id, n.iid, n.confidential = is.ID, &is.IID, is.Confidential
	case domain.TargetMergeRequest:
		if !p.MergeRequestsEnabled {
			return nil, core.NotFound("Project")
		}
		if !access.CanReadMergeRequests(p, t.rights) {
			return nil, core.NotFound(k.what)
		}
		m, err := s.p.MergeRequests.Get(ctx, p.ID, key)
		if err != nil {
			return nil, notFound(err, k.what, "read merge request")
		}
		n.id, n.iid = m.ID, &m.IID
	case domain.TargetSnippet:
		if !access.CanReadSnippets(p, t.rights) {
			return nil, core.NotFound("Project")
		}
		sn, err := s.p.Snippets.Get(ctx, p.ID, key)
		if err != nil {
			return nil, notFound(err, k.what, "read snippet")
		}
		if !access.CanReadSnippet(t.caller, p, t.rights, sn) {
			return nil, core.NotFound(k.what)
		}
		// The feed shows notes on snippets that are not public only to
		// those who see confidential issues (GitLab shows none at all).
		n.id, n.confidential = sn.ID, sn.Visibility != domain.Public
	default:
		return nil, fmt.Errorf("noteable kind %q", k.typ)
	}
	return n, nil
}

// note loads {note_id} of the noteable; a note of anything else is 404.
func (s *Service) note(r *http.Request, n *noteable) (*domain.Note, error) {
	id, err := httpx.IDParam(r, "note_id", "Note")
	if err != nil {
		return nil, err
	}
	note, err := s.p.Notes.Get(r.Context(), id)
	if err != nil {
		return nil, notFound(err, "Note", "read note")
	}
	if note.NoteableType != n.kind.typ || note.NoteableID != n.id {
		return nil, core.NotFound("Note")
	}
	return note, nil
}

// canAdmin is GitLab's admin_note: the note's author, masters and admins.
func (t target) canAdmin(n *domain.Note) bool {
	return t.rights.AtLeast(domain.Master) || (t.caller.UserID() != 0 && n.AuthorID == t.caller.UserID())
}

// touch moves the noteable's updated_at, as a comment does in GitLab.
func (s *Service) touch(ctx context.Context, n *noteable, at time.Time) error {
	var err error
	switch n.kind.typ {
	case domain.TargetIssue:
		_, err = s.p.Issues.Update(ctx, n.projectID, *n.iid, func(i *domain.Issue) error { i.UpdatedAt = at; return nil })
	case domain.TargetMergeRequest:
		_, err = s.p.MergeRequests.Update(ctx, n.projectID, *n.iid, func(m *domain.MergeRequest) error { m.UpdatedAt = at; return nil })
	case domain.TargetSnippet:
		_, err = s.p.Snippets.Update(ctx, n.projectID, n.id, func(sn *domain.Snippet) error { sn.UpdatedAt = at; return nil })
	}
	if err != nil {
		return notFound(err, n.kind.what, "touch "+n.kind.typ)
	}
	return nil
}

// notFound maps a store's not-found to GitLab's 404 of what, and wraps
// anything else.
func notFound(err error, what, doing string) error {
	if errors.Is(err, core.ErrNotFound) {
		return core.NotFound(what)
	}
	return fmt.Errorf("%s: %w", doing, err)
}
