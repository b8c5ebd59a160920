package repository

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// GitLab 9.x's branch messages (app/services/create_branch_service.rb,
// validate_new_branch_service.rb, delete_branch_service.rb).
const (
	msgBranchNameInvalid     = "Branch name is invalid"
	msgBranchExists          = "Branch already exists"
	msgInvalidReference      = "Invalid reference name"
	msgCannotRemoveHead      = "Cannot remove HEAD branch"
	msgCannotRemoveProtected = "Protected branch cant be removed"
	msgBranchMovedOnDelete   = "The branch changed while it was being removed; try again"
)

// BranchInfo is a branch as the Branches API shows it.
type BranchInfo struct {
	domain.Branch
	// Merged: the head is in the default branch's history (see mergeCandidate).
	Merged bool
	// Protection is the rule protecting the branch, nil when none does.
	Protection *domain.ProtectedBranch
}

// branchContext is what BranchInfo needs besides the branch: the
// project's protection rules and the head of its default branch.
type branchContext struct {
	repo          string
	defaultBranch string
	defaultHead   string // "" when the default branch does not exist
	rules         []domain.ProtectedBranch
}

// ListBranches lists one page of the project's branches, sorted by name,
// and how many there are.
func (s *Service) ListBranches(ctx context.Context, req Request, pg domain.Page) ([]BranchInfo, int, error) {
	t, err := s.target(ctx, req, toRead)
	if err != nil {
		return nil, 0, err
	}
	all, err := listRefs(ctx, t.Project, s.p.Reader.Branches, "branches")
	if err != nil {
		return nil, 0, err
	}
	bc, err := s.branchContext(ctx, t.Project, all)
	if err != nil {
		return nil, 0, err
	}
	out, err := s.branchInfos(ctx, bc, pageOf(all, pg))
	if err != nil {
		return nil, 0, err
	}
	return out, len(all), nil
}

// GetBranch reads one branch.
func (s *Service) GetBranch(ctx context.Context, req Request, name string) (BranchInfo, error) {
	t, err := s.target(ctx, req, toRead)
	if err != nil {
		return BranchInfo{}, err
	}
	b, err := s.readBranch(ctx, t.Project, name)
	if err != nil {
		return BranchInfo{}, err
	}
	return s.branchInfo(ctx, t.Project, b)
}

// CreateBranch points a new branch at the commit in.Ref names (GitLab's
// CreateBranchService): a developer's write, under the protection rules.
func (s *Service) CreateBranch(ctx context.Context, req Request, in CreateBranchInput) (BranchInfo, error) {
	t, err := s.target(ctx, req, toPush)
	if err != nil {
		return BranchInfo{}, err
	}
	if !validRefShortName(in.Branch) {
		return BranchInfo{}, core.BadRequest(msgBranchNameInvalid)
	}
	p, repo := t.Project, repoOf(t.Project)
	switch _, err := s.p.Reader.Branch(ctx, repo, in.Branch); {
	case err == nil:
		return BranchInfo{}, core.BadRequest(msgBranchExists)
	case errors.Is(err, core.ErrInvalid):
		return BranchInfo{}, core.BadRequest(msgBranchNameInvalid)
	case !errors.Is(err, core.ErrNotFound):
		return BranchInfo{}, fmt.Errorf("read branch %q: %w", in.Branch, err)
	}
	if err := s.checkBranchPush(ctx, t, in.Branch); err != nil {
		return BranchInfo{}, err
	}
	sha, err := s.p.Reader.Resolve(ctx, repo, in.Ref)
	switch {
	case errors.Is(err, core.ErrNotFound) || errors.Is(err, core.ErrInvalid):
		return BranchInfo{}, core.BadRequest(msgInvalidReference)
	case err != nil:
		return BranchInfo{}, fmt.Errorf("resolve %q: %w", in.Ref, err)
	}
	full := domain.BranchPrefix + in.Branch
	switch err := s.p.Writer.UpdateRef(ctx, repo, full, sha, domain.ZeroID); {
	case errors.Is(err, core.ErrStale) || errors.Is(err, core.ErrConflict):
		return BranchInfo{}, core.BadRequest(msgBranchExists) // created meanwhile
	case errors.Is(err, core.ErrInvalid):
		// A name git refuses (e.g. "a" when "a/b" exists), or a ref that
		// is not a commit.
		return BranchInfo{}, core.BadRequest(msgBranchNameInvalid)
	case errors.Is(err, core.ErrNotFound):
		return BranchInfo{}, core.BadRequest(msgInvalidReference)
	case err != nil:
		return BranchInfo{}, fmt.Errorf("create branch %q: %w", in.Branch, err)
	}
	s.publishRef(ctx, p, req.Caller, full, domain.ZeroID, sha)
	b, err := s.p.Reader.Branch(ctx, repo, in.Branch)
	if err != nil {
		return BranchInfo{}, fmt.Errorf("read created branch %q: %w", in.Branch, err)
	}
	return s.branchInfo(ctx, p, b)
}

// DeleteBranch removes a branch that is neither the default nor
// protected (GitLab's DeleteBranchService).
func (s *Service) DeleteBranch(ctx context.Context, req Request, name string) error {
	t, err := s.target(ctx, req, toPush)
	if err != nil {
		return err
	}
	b, err := s.readBranch(ctx, t.Project, name)
	if err != nil {
		return err
	}
	bc, err := s.branchContext(ctx, t.Project, nil)
	if err != nil {
		return err
	}
	if err := deleteBranchRefusal(bc, b.Name); err != nil {
		return err
	}
	switch err := s.removeBranch(ctx, t.Project, req.Caller, b); {
	case errors.Is(err, core.ErrStale):
		return core.Conflict(msgBranchMovedOnDelete)
	case errors.Is(err, core.ErrNotFound):
		return core.NotFound("Branch")
	case err != nil:
		return fmt.Errorf("delete branch %q: %w", b.Name, err)
	}
	return nil
}

// DeleteMergedBranches deletes every branch merged into the default
// branch (GitLab's DeleteMergedBranchesService), except the default
// branch and protected ones. GitLab does it in the background; Hearth does
// it before answering, so a client that lists branches next sees the
// result.
func (s *Service) DeleteMergedBranches(ctx context.Context, req Request) error {
	t, err := s.target(ctx, req, toPush)
	if err != nil {
		return err
	}
	all, err := listRefs(ctx, t.Project, s.p.Reader.Branches, "branches")
	if err != nil {
		return err
	}
	bc, err := s.branchContext(ctx, t.Project, all)
	if err != nil {
		return err
	}
	var deletable []domain.Branch
	for _, b := range all {
		if deleteBranchRefusal(bc, b.Name) == nil {
			deletable = append(deletable, b)
		}
	}
	merged, err := s.mergedFlags(ctx, bc, deletable)
	if err != nil {
		return err
	}
	for _, b := range deletable {
		if !merged[b.Name] {
			continue
		}
		// A branch that moved or went away meanwhile is left alone.
		if err := s.removeBranch(ctx, t.Project, req.Caller, b); err != nil &&
			!errors.Is(err, core.ErrStale) && !errors.Is(err, core.ErrNotFound) {
			return fmt.Errorf("delete merged branch %q: %w", b.Name, err)
		}
	}
	return nil
}

// ProtectBranch creates or changes the rule named exactly like the branch.
func (s *Service) ProtectBranch(ctx context.Context, req Request, name string, in ProtectBranchInput) (BranchInfo, error) {
	t, err := s.target(ctx, req, toAdmin)
	if err != nil {
		return BranchInfo{}, err
	}
	p := t.Project
	b, err := s.readBranch(ctx, p, name)
	if err != nil {
		return BranchInfo{}, err
	}
	rules, err := s.p.Protected.List(ctx, p.ID)
	if err != nil {
		return BranchInfo{}, fmt.Errorf("protected branches of project %d: %w", p.ID, err)
	}
	rule := domain.ProtectedBranch{ProjectID: p.ID, Name: b.Name, PushAccessLevel: domain.Master, MergeAccessLevel: domain.Master, CreatedAt: s.now()}
	for _, existing := range rules {
		if existing.Name == b.Name {
			rule = existing
			break
		}
	}
	if in.DevelopersCanPush != nil {
		rule.PushAccessLevel = domain.LevelFor(*in.DevelopersCanPush)
	}
	if in.DevelopersCanMerge != nil {
		rule.MergeAccessLevel = domain.LevelFor(*in.DevelopersCanMerge)
	}
	if _, err := s.p.Protected.Protect(ctx, rule); err != nil {
		return BranchInfo{}, fmt.Errorf("protect branch %q: %w", b.Name, err)
	}
	return s.branchInfo(ctx, p, b)
}

// UnprotectBranch removes the rule named like the branch (a wildcard rule
// that also matches stays).
func (s *Service) UnprotectBranch(ctx context.Context, req Request, name string) (BranchInfo, error) {
	t, err := s.target(ctx, req, toAdmin)
	if err != nil {
		return BranchInfo{}, err
	}
	b, err := s.readBranch(ctx, t.Project, name)
	if err != nil {
		return BranchInfo{}, err
	}
	if err := s.p.Protected.Unprotect(ctx, t.Project.ID, b.Name); err != nil {
		return BranchInfo{}, fmt.Errorf("unprotect branch %q: %w", b.Name, err)
	}
	return s.branchInfo(ctx, t.Project, b)
}

// listRefs lists every branch or tag of p; a project whose repository does
// not exist has none, as GitLab answers.
func listRefs[T any](ctx context.Context, p *domain.Project, list func(context.Context, string) ([]T, error), what string) ([]T, error) {
	all, err := list(ctx, repoOf(p))
	switch {
	case errors.Is(err, core.ErrNotFound):
	case err != nil:
		return nil, fmt.Errorf("list %s of project %d: %w", what, p.ID, err)
	}
	if all == nil {
		all = []T{}
	}
	return all, nil
}

// readBranch reads the branch name of p (404 when missing or not a
// possible branch name).
func (s *Service) readBranch(ctx context.Context, p *domain.Project, name string) (domain.Branch, error) {
	if !validRefShortName(name) {
		return domain.Branch{}, core.NotFound("Branch")
	}
	b, err := s.p.Reader.Branch(ctx, repoOf(p), name)
	if errors.Is(err, core.ErrInvalid) {
		return domain.Branch{}, core.NotFound("Branch")
	}
	if err != nil {
		return domain.Branch{}, backendErr(err, "Branch", "read branch")
	}
	return b, nil
}

// branchContext reads the protection rules and the default branch head of
// p (one store query, one ref read). known, when not nil, is the complete
// branch list the caller already holds: the head is taken from it.
func (s *Service) branchContext(ctx context.Context, p *domain.Project, known []domain.Branch) (branchContext, error) {
	bc := branchContext{repo: repoOf(p), defaultBranch: defaultRef(p)}
	rules, err := s.p.Protected.List(ctx, p.ID)
	if err != nil {
		return bc, fmt.Errorf("protected branches of project %d: %w", p.ID, err)
	}
	bc.rules = rules
	for _, b := range known {
		if b.Name == bc.defaultBranch {
			bc.defaultHead = b.Commit.ID
			return bc, nil
		}
	}
	if known != nil {
		return bc, nil // the full list has no default branch
	}
	head, err := s.p.Reader.Branch(ctx, bc.repo, bc.defaultBranch)
	switch {
	case err == nil:
		bc.defaultHead = head.Commit.ID
	case errors.Is(err, core.ErrNotFound) || errors.Is(err, core.ErrInvalid):
	default:
		return bc, fmt.Errorf("read default branch of project %d: %w", p.ID, err)
	}
	return bc, nil
}

// mergeCandidate tells whether b can be merged at all in GitLab 9.x's
// sense (Repository#merged_to_root_ref?): its head is an ancestor of the
// default branch head without being that head (a branch just created from
// the default branch is not "merged"), and the default branch itself never
// is.
func mergeCandidate(bc branchContext, b domain.Branch) bool {
	return b.Name != bc.defaultBranch && bc.defaultHead != "" && b.Commit.ID != bc.defaultHead
}

// mergedFlags decides "merged" for each of branches, keyed by name: one
// MergedBranches walk of the default branch, however many branches.
func (s *Service) mergedFlags(ctx context.Context, bc branchContext, branches []domain.Branch) (map[string]bool, error) {
	out := make(map[string]bool, len(branches))
	if bc.defaultHead == "" {
		return out, nil
	}
	names, err := s.p.Reader.MergedBranches(ctx, bc.repo, bc.defaultHead)
	if err != nil {
		return nil, fmt.Errorf("branches merged into %s: %w", bc.defaultBranch, err)
	}
	reachable := make(map[string]bool, len(names))
	for _, n := range names {
		reachable[n] = true
	}
	for _, b := range branches {
		out[b.Name] = mergeCandidate(bc, b) && reachable[b.Name]
	}
	return out, nil
}

// branchInfos completes branches, deciding "merged" for all of them at once.
func (s *Service) branchInfos(ctx context.Context, bc branchContext, branches []domain.Branch) ([]BranchInfo, error) {
	merged, err := s.mergedFlags(ctx, bc, branches)
	if err != nil {
		return nil, err
	}
	out := make([]BranchInfo, 0, len(branches))
	for _, b := range branches {
		info := BranchInfo{Branch: b, Merged: merged[b.Name]}
		if rule, ok := domain.Protection(bc.rules, b.Name); ok {
			info.Protection = &rule
		}
		out = append(out, info)
	}
	return out, nil
}

// branchInfo completes one branch of p.
func (s *Service) branchInfo(ctx context.Context, p *domain.Project, b domain.Branch) (BranchInfo, error) {
	bc, err := s.branchContext(ctx, p, nil)
	if err != nil {
		return BranchInfo{}, err
	}
	out, err := s.branchInfos(ctx, bc, []domain.Branch{b})
	if err != nil {
		return BranchInfo{}, err
	}
	return out[0], nil
}

// deleteBranchRefusal is GitLab 9.x's DeleteBranchService refusals (405):
// the default branch and protected branches stay.
func deleteBranchRefusal(bc branchContext, name string) error {
	if name == bc.defaultBranch {
		return core.NotAllowed(msgCannotRemoveHead)
	}
	if _, ok := domain.Protection(bc.rules, name); ok {
		return core.NotAllowed(msgCannotRemoveProtected)
	}
	return nil
}

// removeBranch deletes b by compare-and-swap on its head and announces it.
func (s *Service) removeBranch(ctx context.Context, p *domain.Project, caller *domain.Caller, b domain.Branch) error {
	ref := domain.BranchPrefix + b.Name
	if err := s.p.Writer.UpdateRef(ctx, repoOf(p), ref, domain.ZeroID, b.Commit.ID); err != nil {
		return err
	}
	s.publishRef(ctx, p, caller, ref, b.Commit.ID, domain.ZeroID)
	return nil
}
