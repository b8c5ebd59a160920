package repository

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
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

// branchRoutes lists the Branches endpoints.
func (h handlers) branchRoutes() []httpx.Route {
	const base = "/projects/{id}/repository/branches"
	return []httpx.Route{
		{Method: http.MethodGet, Pattern: base, Handle: h.listBranches},
		{Method: http.MethodPost, Pattern: base, Handle: h.createBranch},
		{Method: http.MethodGet, Pattern: base + "/{branch}", Handle: h.getBranch},
		{Method: http.MethodDelete, Pattern: base + "/{branch}", Handle: h.deleteBranch},
		{Method: http.MethodPut, Pattern: base + "/{branch}/protect", Handle: h.protectBranch},
		{Method: http.MethodPut, Pattern: base + "/{branch}/unprotect", Handle: h.unprotectBranch},
		{Method: http.MethodDelete, Pattern: "/projects/{id}/repository/merged_branches", Handle: h.deleteMergedBranches},
	}
}

// branchJSON is GitLab 9.x's RepoBranch entity.
type branchJSON struct {
	Name               string     `json:"name"`
	Commit             commitJSON `json:"commit"`
	Merged             bool       `json:"merged"`
	Protected          bool       `json:"protected"`
	DevelopersCanPush  bool       `json:"developers_can_push"`
	DevelopersCanMerge bool       `json:"developers_can_merge"`
}

// branchContext is what the Branch entity needs besides the branch: the
// project's protection rules and the head of its default branch.
type branchContext struct {
	repo          string
	defaultBranch string
	defaultHead   string // "" when the default branch does not exist
	rules         []domain.ProtectedBranch
}

// validRefShortName is domain.ValidShortRefName for names that travel in
// JSON, so valid UTF-8 too.
func validRefShortName(name string) bool {
	return utf8.ValidString(name) && domain.ValidShortRefName(name)
}

// branchParam reads the URL-encoded {branch} path parameter; an empty name
// names no branch.
func branchParam(r *http.Request) (string, error) {
	name, err := httpx.PathParam(r, "branch")
	if err != nil {
		return "", err
	}
	if name == "" {
		return "", core.NotFound("Branch")
	}
	return name, nil
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
	head, err := s.p.Repos.Branch(ctx, bc.repo, bc.defaultBranch)
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
	names, err := s.p.Repos.MergedBranches(ctx, bc.repo, bc.defaultHead)
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

// branchJSONs renders branches, deciding "merged" for all of them at once.
func (s *Service) branchJSONs(ctx context.Context, bc branchContext, branches []domain.Branch) ([]branchJSON, error) {
	merged, err := s.mergedFlags(ctx, bc, branches)
	if err != nil {
		return nil, err
	}
	out := make([]branchJSON, 0, len(branches))
	for _, b := range branches {
		j := branchJSON{Name: b.Name, Commit: newCommitJSON(b.Commit), Merged: merged[b.Name]}
		if rule, ok := protection(bc.rules, b.Name); ok {
			j.Protected = true
			j.DevelopersCanPush = rule.DevelopersCanPush
			j.DevelopersCanMerge = rule.DevelopersCanMerge
		}
		out = append(out, j)
	}
	return out, nil
}

// publishRef announces a ref created or deleted through the API, as GitLab
// does with a push of no commits. Failures are logged: the ref moved.
func (s *Service) publishRef(ctx context.Context, p *domain.Project, caller *domain.Caller, ref, before, after string) {
	ev := domain.PushEvent{
		ProjectID: p.ID, Actor: caller.UserID(), Ref: ref,
		Before: before, After: after, Commits: []domain.PushCommit{}, TotalCommits: 0, At: s.now(),
	}
	if err := s.p.Bus.Publish(ctx, ev); err != nil {
		s.log.Error("push event of API ref change", zap.Int64("project_id", p.ID), zap.String("ref", ref), zap.Error(err))
	}
}

// GET /projects/:id/repository/branches
func (h handlers) listBranches(w http.ResponseWriter, r *http.Request) error {
	p, _, err := h.readable(r)
	if err != nil {
		return err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	all, err := h.s.p.Repos.Branches(ctx, repoOf(p))
	switch {
	case errors.Is(err, core.ErrNotFound):
		all = []domain.Branch{} // no repository: no branches, as GitLab answers
	case err != nil:
		return fmt.Errorf("list branches of project %d: %w", p.ID, err)
	}
	if all == nil {
		all = []domain.Branch{}
	}
	bc, err := h.s.branchContext(ctx, p, all)
	if err != nil {
		return err
	}
	out, err := h.s.branchJSONs(ctx, bc, pageOf(all, pg))
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, out, len(all), pg)
}

// readBranch reads the branch {branch} of p (404 when missing or not a
// possible branch name).
func (h handlers) readBranch(r *http.Request, p *domain.Project) (domain.Branch, error) {
	name, err := branchParam(r)
	if err != nil {
		return domain.Branch{}, err
	}
	if !validRefShortName(name) {
		return domain.Branch{}, core.NotFound("Branch")
	}
	b, err := h.s.p.Repos.Branch(r.Context(), repoOf(p), name)
	if errors.Is(err, core.ErrInvalid) {
		return domain.Branch{}, core.NotFound("Branch")
	}
	if err != nil {
		return domain.Branch{}, backendErr(err, "Branch", "read branch")
	}
	return b, nil
}

// renderBranch answers one branch with status.
func (h handlers) renderBranch(w http.ResponseWriter, r *http.Request, p *domain.Project, b domain.Branch, status int) error {
	bc, err := h.s.branchContext(r.Context(), p, nil)
	if err != nil {
		return err
	}
	out, err := h.s.branchJSONs(r.Context(), bc, []domain.Branch{b})
	if err != nil {
		return err
	}
	return httpx.JSON(w, status, out[0])
}

// GET /projects/:id/repository/branches/:branch
func (h handlers) getBranch(w http.ResponseWriter, r *http.Request) error {
	p, _, err := h.readable(r)
	if err != nil {
		return err
	}
	b, err := h.readBranch(r, p)
	if err != nil {
		return err
	}
	return h.renderBranch(w, r, p, b, http.StatusOK)
}

// POST /projects/:id/repository/branches
func (h handlers) createBranch(w http.ResponseWriter, r *http.Request) error {
	caller, p, rights, err := h.writable(r, domain.Developer)
	if err != nil {
		return err
	}
	var in struct {
		Branch string `param:"branch,required,nul"`
		Ref    string `param:"ref,required"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	if p.Archived {
		return core.Forbidden("")
	}
	if !validRefShortName(in.Branch) {
		return core.BadRequest(msgBranchNameInvalid)
	}
	ctx, repo := r.Context(), repoOf(p)
	switch _, err := h.s.p.Repos.Branch(ctx, repo, in.Branch); {
	case err == nil:
		return core.BadRequest(msgBranchExists)
	case errors.Is(err, core.ErrInvalid):
		return core.BadRequest(msgBranchNameInvalid)
	case !errors.Is(err, core.ErrNotFound):
		return fmt.Errorf("read branch %q: %w", in.Branch, err)
	}
	if err := h.s.checkBranchPush(ctx, p, rights, in.Branch); err != nil {
		return err
	}
	sha, err := h.s.p.Repos.Resolve(ctx, repo, in.Ref)
	switch {
	case errors.Is(err, core.ErrNotFound) || errors.Is(err, core.ErrInvalid):
		return core.BadRequest(msgInvalidReference)
	case err != nil:
		return fmt.Errorf("resolve %q: %w", in.Ref, err)
	}
	ref := domain.BranchPrefix + in.Branch
	switch err := h.s.p.Repos.UpdateRef(ctx, repo, ref, sha, domain.ZeroID); {
	case errors.Is(err, core.ErrStale) || errors.Is(err, core.ErrConflict):
		return core.BadRequest(msgBranchExists) // created meanwhile
	case errors.Is(err, core.ErrInvalid):
		// A name git refuses (e.g. "a" when "a/b" exists), or a ref that
		// is not a commit.
		return core.BadRequest(msgBranchNameInvalid)
	case errors.Is(err, core.ErrNotFound):
		return core.BadRequest(msgInvalidReference)
	case err != nil:
		return fmt.Errorf("create branch %q: %w", in.Branch, err)
	}
	h.s.publishRef(ctx, p, caller, ref, domain.ZeroID, sha)
	b, err := h.s.p.Repos.Branch(ctx, repo, in.Branch)
	if err != nil {
		return fmt.Errorf("read created branch %q: %w", in.Branch, err)
	}
	return h.renderBranch(w, r, p, b, http.StatusCreated)
}

// deleteBranchRefusal is GitLab 9.x's DeleteBranchService refusals (405):
// the default branch and protected branches stay.
func deleteBranchRefusal(bc branchContext, name string) error {
	if name == bc.defaultBranch {
		return core.NotAllowed(msgCannotRemoveHead)
	}
	if _, ok := protection(bc.rules, name); ok {
		return core.NotAllowed(msgCannotRemoveProtected)
	}
	return nil
}

// removeBranch deletes b by compare-and-swap on its head and announces it.
func (s *Service) removeBranch(ctx context.Context, p *domain.Project, caller *domain.Caller, b domain.Branch) error {
	ref := domain.BranchPrefix + b.Name
	if err := s.p.Repos.UpdateRef(ctx, repoOf(p), ref, domain.ZeroID, b.Commit.ID); err != nil {
		return err
	}
	s.publishRef(ctx, p, caller, ref, b.Commit.ID, domain.ZeroID)
	return nil
}

// DELETE /projects/:id/repository/branches/:branch
func (h handlers) deleteBranch(w http.ResponseWriter, r *http.Request) error {
	caller, p, _, err := h.writable(r, domain.Developer)
	if err != nil {
		return err
	}
	if p.Archived {
		return core.Forbidden("")
	}
	b, err := h.readBranch(r, p)
	if err != nil {
		return err
	}
	ctx := r.Context()
	bc, err := h.s.branchContext(ctx, p, nil)
	if err != nil {
		return err
	}
	if err := deleteBranchRefusal(bc, b.Name); err != nil {
		return err
	}
	switch err := h.s.removeBranch(ctx, p, caller, b); {
	case errors.Is(err, core.ErrStale):
		return core.Conflict(msgBranchMovedOnDelete)
	case errors.Is(err, core.ErrNotFound):
		return core.NotFound("Branch")
	case err != nil:
		return fmt.Errorf("delete branch %q: %w", b.Name, err)
	}
	return httpx.NoContent(w)
}

// DELETE /projects/:id/repository/merged_branches deletes every branch
// merged into the default branch (GitLab's DeleteMergedBranchesService),
// except the default branch and protected ones. GitLab runs it in the
// background and answers 202; Hearth does the work before answering, so a
// client that lists branches next sees the result.
func (h handlers) deleteMergedBranches(w http.ResponseWriter, r *http.Request) error {
	caller, p, _, err := h.writable(r, domain.Developer)
	if err != nil {
		return err
	}
	if p.Archived {
		return core.Forbidden("")
	}
	ctx := r.Context()
	all, err := h.s.p.Repos.Branches(ctx, repoOf(p))
	switch {
	case errors.Is(err, core.ErrNotFound):
		all = nil
	case err != nil:
		return fmt.Errorf("list branches of project %d: %w", p.ID, err)
	}
	bc, err := h.s.branchContext(ctx, p, all)
	if err != nil {
		return err
	}
	var deletable []domain.Branch
	for _, b := range all {
		if deleteBranchRefusal(bc, b.Name) == nil {
			deletable = append(deletable, b)
		}
	}
	merged, err := h.s.mergedFlags(ctx, bc, deletable)
	if err != nil {
		return err
	}
	for _, b := range deletable {
		if !merged[b.Name] {
			continue
		}
		// A branch that moved or went away meanwhile is left alone.
		if err := h.s.removeBranch(ctx, p, caller, b); err != nil &&
			!errors.Is(err, core.ErrStale) && !errors.Is(err, core.ErrNotFound) {
			return fmt.Errorf("delete merged branch %q: %w", b.Name, err)
		}
	}
	return httpx.JSON(w, http.StatusAccepted, map[string]string{"message": "202 Accepted"})
}

// PUT /projects/:id/repository/branches/:branch/protect
func (h handlers) protectBranch(w http.ResponseWriter, r *http.Request) error {
	_, p, _, err := h.writable(r, domain.Master)
	if err != nil {
		return err
	}
	var in struct {
		DevelopersCanPush  *bool `param:"developers_can_push"`
		DevelopersCanMerge *bool `param:"developers_can_merge"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	b, err := h.readBranch(r, p)
	if err != nil {
		return err
	}
	ctx := r.Context()
	rules, err := h.s.p.Protected.List(ctx, p.ID)
	if err != nil {
		return fmt.Errorf("protected branches of project %d: %w", p.ID, err)
	}
	// The rule named exactly like the branch: flags not given stay as they
	// are (false for a new rule), as GitLab's legacy protect API does.
	rule := domain.ProtectedBranch{ProjectID: p.ID, Name: b.Name, CreatedAt: h.s.now()}
	for _, existing := range rules {
		if existing.Name == b.Name {
			rule = existing
			break
		}
	}
	if in.DevelopersCanPush != nil {
		rule.DevelopersCanPush = *in.DevelopersCanPush
	}
	if in.DevelopersCanMerge != nil {
		rule.DevelopersCanMerge = *in.DevelopersCanMerge
	}
	if _, err := h.s.p.Protected.Protect(ctx, rule); err != nil {
		return fmt.Errorf("protect branch %q: %w", b.Name, err)
	}
	return h.renderBranch(w, r, p, b, http.StatusOK)
}

// PUT /projects/:id/repository/branches/:branch/unprotect removes the
// rule named like the branch (a wildcard rule that also matches stays).
func (h handlers) unprotectBranch(w http.ResponseWriter, r *http.Request) error {
	_, p, _, err := h.writable(r, domain.Master)
	if err != nil {
		return err
	}
	b, err := h.readBranch(r, p)
	if err != nil {
		return err
	}
	if err := h.s.p.Protected.Unprotect(r.Context(), p.ID, b.Name); err != nil {
		return fmt.Errorf("unprotect branch %q: %w", b.Name, err)
	}
	return h.renderBranch(w, r, p, b, http.StatusOK)
}
