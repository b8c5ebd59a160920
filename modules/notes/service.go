package notes

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
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
	Tx            ports.TxManager
	Bus           ports.EventBus
	Clock         ports.Clock
	Policy        *access.Policy
}

// Service holds the notes use cases. It never sees HTTP types.
type Service struct{ p Params }

// NewService builds the service.
func NewService(p Params) *Service { return &Service{p: p} }

// now is truncated to milliseconds, the precision clients see.
func (s *Service) now() time.Time { return s.p.Clock.Now().UTC().Truncate(time.Millisecond) }

// NoteableRef names what notes are on: an issue or a merge request by
// its IID, or a snippet by its ID, in a project.
type NoteableRef struct {
	Project domain.IDOrPath
	Type    string // domain.TargetIssue, TargetMergeRequest or TargetSnippet
	// Key is the IID (the ID for snippets); 0 when the request named none
	// that can exist, which is the noteable's 404.
	Key int64
}

// Noteable is an issue, merge request or snippet the caller may read.
type Noteable struct {
	Type      string
	ID        int64
	IID       *int64 // issues and merge requests
	ProjectID int64
	// AuthorID is the noteable's author, who may not vote on it.
	AuthorID int64
	// Confidential notes' events are hidden from readers who may not see
	// confidential issues (NoteEvent.Confidential).
	Confidential bool
}

// noteableNames are the 404 names of the noteable types.
var noteableNames = map[string]string{
	domain.TargetIssue:        "Issue",
	domain.TargetMergeRequest: "Merge Request",
	domain.TargetSnippet:      "Snippet",
}

// noteable resolves ref as caller sees it. A project that is missing,
// unreadable or has the feature off is the project's 404; a noteable
// missing or hidden from the caller (confidential issues, private
// snippets, merge requests of private projects for guests) is the
// noteable's 404.
func (s *Service) noteable(ctx context.Context, caller *domain.Caller, ref NoteableRef) (access.Target, *Noteable, error) {
	what, ok := noteableNames[ref.Type]
	if !ok {
		return access.Target{}, nil, fmt.Errorf("noteable type %q", ref.Type)
	}
	t, err := s.p.Policy.Resolve(ctx, caller, ref.Project)
	if err != nil {
		return t, nil, err
	}
	if ref.Key <= 0 {
		return t, nil, core.NotFound(what)
	}
	p := t.Project
	n := &Noteable{Type: ref.Type, ProjectID: p.ID}
	switch ref.Type {
	case domain.TargetIssue:
		if !t.Can(access.ReadIssue) {
			return t, nil, core.NotFound("Project")
		}
		is, err := s.p.Issues.Get(ctx, p.ID, ref.Key)
		if err != nil {
			return t, nil, core.StoreError(err, what, "read issue")
		}
		if !t.Can(access.ReadIssue, access.OnIssue(is)) {
			return t, nil, core.NotFound(what)
		}
		n.ID, n.IID, n.AuthorID, n.Confidential = is.ID, &is.IID, is.AuthorID, is.Confidential
	case domain.TargetMergeRequest:
		// The feature off hides the project; guests of private projects
		// read no code, so not its merge requests either.
		if !p.MergeRequestsEnabled {
			return t, nil, core.NotFound("Project")
		}
		if !t.Can(access.ReadMergeRequest) {
			return t, nil, core.NotFound(what)
		}
		m, err := s.p.MergeRequests.Get(ctx, p.ID, ref.Key)
		if err != nil {
			return t, nil, core.StoreError(err, what, "read merge request")
		}
		n.ID, n.IID, n.AuthorID = m.ID, &m.IID, m.AuthorID
	case domain.TargetSnippet:
		if !t.Can(access.ReadSnippet) {
			return t, nil, core.NotFound("Project")
		}
		sn, err := s.p.Snippets.Get(ctx, p.ID, ref.Key)
		if err != nil {
			return t, nil, core.StoreError(err, what, "read snippet")
		}
		if !t.Can(access.ReadSnippet, access.OnSnippet(sn)) {
			return t, nil, core.NotFound(what)
		}
		// The feed shows notes on snippets that are not public only to
		// those who see confidential issues (GitLab shows none at all).
		n.ID, n.AuthorID, n.Confidential = sn.ID, sn.AuthorID, sn.Visibility != domain.Public
	}
	return t, n, nil
}

// writable is noteable for writes: 401 first, then the 404s; archived
// projects take no notes (403).
func (s *Service) writable(ctx context.Context, caller *domain.Caller, ref NoteableRef) (access.Target, *Noteable, error) {
	if caller.UserID() == 0 {
		return access.Target{}, nil, core.Unauthenticated()
	}
	t, nb, err := s.noteable(ctx, caller, ref)
	if err != nil {
		return t, nil, err
	}
	if err := t.Require(access.CreateNote); err != nil {
		return t, nil, err
	}
	return t, nb, nil
}

// note loads note id of the noteable; a note of anything else, and an id
// that cannot exist (0), is the note's 404.
func (s *Service) note(ctx context.Context, nb *Noteable, id int64) (*domain.Note, error) {
	if id <= 0 {
		return nil, core.NotFound("Note")
	}
	note, err := s.p.Notes.Get(ctx, id)
	if err != nil {
		return nil, core.StoreError(err, "Note", "read note")
	}
	if note.NoteableType != nb.Type || note.NoteableID != nb.ID {
		return nil, core.NotFound("Note")
	}
	return note, nil
}

// touch moves the noteable's updated_at, as a comment does in GitLab.
func (s *Service) touch(ctx context.Context, n *Noteable, at time.Time) error {
	var err error
	switch n.Type {
	case domain.TargetIssue:
		_, err = s.p.Issues.Update(ctx, n.ProjectID, *n.IID, func(i *domain.Issue) error { i.UpdatedAt = at; return nil })
	case domain.TargetMergeRequest:
		_, err = s.p.MergeRequests.Update(ctx, n.ProjectID, *n.IID, func(m *domain.MergeRequest) error { m.UpdatedAt = at; return nil })
	case domain.TargetSnippet:
		_, err = s.p.Snippets.Update(ctx, n.ProjectID, n.ID, func(sn *domain.Snippet) error { sn.UpdatedAt = at; return nil })
	}
	if err != nil {
		return core.StoreError(err, noteableNames[n.Type], "touch "+n.Type)
	}
	return nil
}
