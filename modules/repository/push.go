package repository

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// GitLab's push refusals (lib/gitlab/checks/change_access.rb).
const (
	msgDeleteDefault       = "The default branch of a project cannot be deleted."
	msgForcePushProtected  = "You are not allowed to force push code to a protected branch on this project."
	msgNonMasterDelete     = "You are not allowed to delete protected branches from this project. Only a project master or owner can delete a protected branch."
	msgNonWebDelete        = "You can only delete protected branches using the web interface."
	msgPushProtected       = "You are not allowed to push code to protected branches on this project."
	msgChangeExistingTags  = "You are not allowed to change existing tags on this project."
	msgReservedRef         = "You are not allowed to push to this ref."
	msgUnverifiedProtected = "This push to a protected branch cannot be checked by the git backend in use."
)

// pushCommitLimit is GitLab's cap on the commits carried by push data.
const pushCommitLimit = 20

// pushDenied is a push refused by a rule; git shows it as "remote: GitLab: ...".
type pushDenied string

func (e pushDenied) Error() string { return "GitLab: " + string(e) }

// ReceivePack serves one push whose command list push was read from the
// start of the body; in is the rest of the body. Every command is checked
// against the project's rules before git runs; the rules that need the
// pushed objects (no force-push to a protected branch) are checked again
// by the backend between the arrival of the objects and the moving of the
// refs (ports.CheckedReceiver). A refused push is a pushDenied error and
// nothing was written to w. Push events follow what the refs hold once git
// is done, whether or not the client stayed to read the answer.
func (g *GitRepo) ReceivePack(ctx context.Context, push PushRequest, protocol string, in io.Reader, w io.Writer) error {
	return g.receive(ctx, push, protocol, in, w, true)
}

// receive is ReceivePack; without early, a checked receiver alone
// decides (after the pack arrived), as over SSH, where a refusal before
// reading the pack would cut the client off.
func (g *GitRepo) receive(ctx context.Context, push PushRequest, protocol string, in io.Reader, w io.Writer, early bool) error {
	if g.service != receivePack {
		return fmt.Errorf("receive-pack on a repository opened for %s", g.service)
	}
	s, p := g.s, g.t.Project
	repo := repoOf(p)
	rules, err := s.p.Protected.List(ctx, p.ID)
	if err != nil {
		return fmt.Errorf("protected branches of project %d: %w", p.ID, err)
	}
	pol := pushPolicy{t: g.t, rules: rules}

	// Rules that need no pushed object, before git runs.
	_, checked := s.p.Transport.(ports.CheckedReceiver)
	for _, c := range push.commands {
		if !early && checked {
			break
		}
		if err := pol.check(c, false); err != nil {
			return err
		}
	}

	body := io.MultiReader(bytes.NewReader(push.raw), in)
	if cr, ok := s.p.Transport.(ports.CheckedReceiver); ok {
		check := func(ctx context.Context, updates []domain.RefUpdate) error {
			for _, u := range updates {
				if err := pol.check(u, true); err != nil {
					return err
				}
			}
			return nil
		}
		err = cr.ReceivePack(ctx, repo, protocol, body, w, check)
	} else {
		// Without a checked receiver the pushed objects are not visible
		// before refs move: a protected branch update is allowed only when
		// the repository already proves it a fast-forward.
		for _, c := range push.commands {
			if err := s.fallbackForcePushCheck(ctx, repo, pol, c); err != nil {
				return err
			}
		}
		err = s.p.Transport.ServeRPC(ctx, repo, receivePack, protocol, body, w)
	}
	done := context.WithoutCancel(ctx)
	defer s.publishPushes(done, p, g.t.Caller, push.commands)
	if err != nil {
		return err
	}
	s.adoptDefaultBranch(done, p, push.commands)
	return nil
}

// pushPolicy is GitLab's change access check for one project and caller
// (lib/gitlab/checks/change_access.rb). Pushing at all (push_code) was
// checked when the repository was opened.
type pushPolicy struct {
	t     access.Target
	rules []domain.ProtectedBranch
}

// reservedRefs are the refs the server keeps for itself.
var reservedRefs = []string{"refs/merge-requests/", "refs/keep-around/", "refs/environments/", "refs/pipelines/"}

// check decides one update; ffKnown tells whether u.FastForward is known
// (only once the pushed objects arrived).
func (pp pushPolicy) check(u domain.RefUpdate, ffKnown bool) error {
	for _, prefix := range reservedRefs {
		if strings.HasPrefix(u.Ref, prefix) {
			return pushDenied(msgReservedRef)
		}
	}
	deletion := u.NewID == domain.ZeroID
	switch {
	case strings.HasPrefix(u.Ref, domain.BranchPrefix):
		branch := strings.TrimPrefix(u.Ref, domain.BranchPrefix)
		if deletion && branch == pp.t.Project.DefaultBranch {
			return pushDenied(msgDeleteDefault)
		}
		if _, protected := domain.Protection(pp.rules, branch); !protected {
			return nil
		}
		if ffKnown && !deletion && u.OldID != domain.ZeroID && !u.FastForward {
			return pushDenied(msgForcePushProtected)
		}
		if deletion {
			if !pp.t.Can(access.PushToProtectedBranches) {
				return pushDenied(msgNonMasterDelete)
			}
			return pushDenied(msgNonWebDelete)
		}
		exists := func() (bool, error) { return u.OldID != domain.ZeroID, nil }
		if ok, _ := mayPush(pp.t, pp.rules, branch, exists); !ok {
			return pushDenied(msgPushProtected)
		}
	case strings.HasPrefix(u.Ref, domain.TagPrefix):
		// Moving or deleting a tag is a master's call (GitLab asks
		// admin_project).
		if u.OldID != domain.ZeroID && !pp.t.Can(access.AdminProject) {
			return pushDenied(msgChangeExistingTags)
		}
	}
	return nil
}

// protectedUpdate reports whether u moves an existing protected branch to
// another commit (the case the force-push rule is about).
func (pp pushPolicy) protectedUpdate(u domain.RefUpdate) bool {
	if !strings.HasPrefix(u.Ref, domain.BranchPrefix) || u.OldID == domain.ZeroID || u.NewID == domain.ZeroID {
		return false
	}
	_, protected := domain.Protection(pp.rules, strings.TrimPrefix(u.Ref, domain.BranchPrefix))
	return protected
}

// fallbackForcePushCheck decides the force-push rule for backends that
// cannot hold a push between its objects and its refs: an update of a
// protected branch passes only when the repository already holds the new
// commit as a descendant of the old one; when it cannot tell (the new
// objects are still in the push) the push is refused rather than let a
// force-push through.
func (s *Service) fallbackForcePushCheck(ctx context.Context, repo string, pp pushPolicy, u domain.RefUpdate) error {
	if !pp.protectedUpdate(u) {
		return nil
	}
	ff, err := s.p.Reader.IsAncestor(ctx, repo, u.OldID, u.NewID)
	switch {
	case errors.Is(err, core.ErrNotFound) || errors.Is(err, core.ErrInvalid):
		return pushDenied(msgUnverifiedProtected)
	case err != nil:
		return fmt.Errorf("force-push check of %s: %w", u.Ref, err)
	case !ff:
		return pushDenied(msgForcePushProtected)
	}
	return nil
}

// publishPushes publishes a PushEvent for every branch or tag command of
// a finished receive-pack whose ref now holds the pushed value (refused or
// failed commands moved nothing). Failures are logged: the push itself
// succeeded.
func (s *Service) publishPushes(ctx context.Context, p *domain.Project, caller *domain.Caller, cmds []domain.RefUpdate) {
	repo := repoOf(p)
	for _, c := range cmds {
		ev, ok, err := s.pushEvent(ctx, p, repo, caller, c)
		if err == nil && ok {
			err = s.p.Bus.Publish(ctx, ev)
		}
		if err != nil {
			s.log.Error("git http: push event", zap.Int64("project_id", p.ID), zap.String("ref", c.Ref), zap.Error(err))
		}
	}
}

// pushEvent builds the event of one command, ok false when the ref does not
// hold the command's new value (the update was refused, or another push
// moved it since).
func (s *Service) pushEvent(ctx context.Context, p *domain.Project, repo string, caller *domain.Caller, c domain.RefUpdate) (domain.PushEvent, bool, error) {
	ev := domain.PushEvent{ProjectID: p.ID, Actor: caller.ActorID(), Ref: c.Ref, Before: c.OldID, After: c.NewID, At: s.now()}
	head, known, err := s.refHead(ctx, repo, c.Ref)
	if err != nil || !known {
		return ev, false, err
	}
	if c.NewID == domain.ZeroID {
		return ev, head == "", nil
	}
	if head != c.NewID {
		return ev, false, nil
	}
	if strings.HasPrefix(c.Ref, domain.TagPrefix) {
		// GitLab's tag push data carries the tagged commit.
		commit, err := s.p.Reader.Commit(ctx, repo, c.NewID)
		if err != nil {
			return ev, false, fmt.Errorf("tagged commit of %s: %w", c.Ref, err)
		}
		ev.Commits, ev.TotalCommits = []domain.PushCommit{pushCommit(commit)}, 1
		return ev, true, nil
	}
	q := domain.LogQuery{Ref: c.NewID}
	if c.OldID != domain.ZeroID {
		q.Exclude = []string{c.OldID}
	} else if def := p.DefaultBranch; def != "" && domain.BranchPrefix+def != c.Ref {
		// A new branch lists the commits that are not on the default branch.
		if b, err := s.p.Reader.Branch(ctx, repo, def); err == nil {
			q.Exclude = []string{b.Commit.ID}
		}
	}
	total, err := s.p.Reader.CountCommits(ctx, repo, q)
	if err != nil {
		return ev, false, fmt.Errorf("count pushed commits of %s: %w", c.Ref, err)
	}
	q.Limit = pushCommitLimit
	commits, err := s.p.Reader.Log(ctx, repo, q)
	if err != nil {
		return ev, false, fmt.Errorf("pushed commits of %s: %w", c.Ref, err)
	}
	ev.TotalCommits = total
	for _, cm := range commits {
		ev.Commits = append(ev.Commits, pushCommit(cm))
	}
	return ev, true, nil
}

// refHead is what the branch or tag full names holds now ("" when it does
// not exist; for a tag, the object its ref points at); known is false for
// other refs.
func (s *Service) refHead(ctx context.Context, repo, full string) (head string, known bool, err error) {
	switch {
	case strings.HasPrefix(full, domain.BranchPrefix):
		var b domain.Branch
		if b, err = s.p.Reader.Branch(ctx, repo, strings.TrimPrefix(full, domain.BranchPrefix)); err == nil {
			head = b.Commit.ID
		}
	case strings.HasPrefix(full, domain.TagPrefix):
		var t domain.Tag
		if t, err = s.p.Reader.Tag(ctx, repo, strings.TrimPrefix(full, domain.TagPrefix)); err == nil {
			head = t.TargetID
		}
	default:
		return "", false, nil
	}
	if err != nil && !errors.Is(err, core.ErrNotFound) && !errors.Is(err, core.ErrInvalid) {
		return "", false, fmt.Errorf("read %s: %w", full, err)
	}
	return head, true, nil
}
