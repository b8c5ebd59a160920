package gitinput

import (
	"fmt"

	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// GitLab's refusals of requests that depend on what the repository holds
// (Gitlab::Git::Index, Gitlab::Git::CommitResult and friends, 9.x); the
// backends answer them with core.BadRequest.
const (
	MsgNotOnBranch     = "You can only create or edit files when you are on a branch"
	MsgNoCommonHistory = "The branches have no common history"
	MsgCherryPickMerge = "Sorry, we cannot cherry-pick a merge commit"
	MsgNothingToPick   = "Sorry, we cannot cherry-pick this commit automatically. This commit may already have been cherry-picked, or a more recent commit may have updated some of its content."
)

// CommitBase checks a CommitFiles request (already through CommitFiles)
// against the refs of the bare repository at gitDir. It returns the
// branch's full ref name, its head (domain.ZeroID while the branch does
// not exist) and the parent of the new commit: the head, else the start
// branch's head, else none ("") in a repository without any ref, which
// isEmpty reports (its error is returned as it is). A head other than
// req.ExpectedHead is core.ErrStale.
func (c Checker) CommitBase(gitDir string, req domain.CommitFiles, isEmpty func() (bool, error)) (ref, head, parent string, err error) {
	ref = domain.BranchPrefix + req.Branch
	head, err = gitobject.CurrentRef(gitDir, ref)
	if err != nil {
		return "", "", "", fmt.Errorf("%s: commit to %s: %w", c, ref, err)
	}
	if req.ExpectedHead != "" && req.ExpectedHead != head {
		return "", "", "", fmt.Errorf("%s: %s is at %s, not %s: %w", c, ref, head, req.ExpectedHead, core.ErrStale)
	}
	if head != domain.ZeroID {
		return ref, head, head, nil
	}
	if req.StartBranch != "" && req.StartBranch != req.Branch {
		start, ok, err := gitobject.ReadRef(gitDir, domain.BranchPrefix+req.StartBranch)
		if err != nil {
			return "", "", "", fmt.Errorf("%s: commit to %s: %w", c, ref, err)
		}
		if !ok {
			return "", "", "", core.BadRequest(MsgNotOnBranch)
		}
		return ref, head, start, nil
	}
	empty, err := isEmpty()
	if err != nil {
		return "", "", "", err
	}
	if !empty {
		return "", "", "", core.BadRequest(MsgNotOnBranch)
	}
	return ref, head, "", nil
}

// CherryPickable refuses to pick a merge commit, as GitLab does.
func (c Checker) CherryPickable(pick domain.Commit) error {
	if len(pick.ParentIDs) > 1 {
		return core.BadRequest(MsgCherryPickMerge)
	}
	return nil
}

// DefaultBranch checks that branch, to become the default branch of repo
// (the bare repository at gitDir), exists, and returns its full ref name.
func (c Checker) DefaultBranch(gitDir, repo, branch string) (string, error) {
	if err := gitnames.CheckBranch(branch); err != nil {
		return "", err
	}
	ref := domain.BranchPrefix + branch
	if _, ok, err := gitobject.ReadRef(gitDir, ref); err != nil {
		return "", fmt.Errorf("%s: set default branch of %s: %w", c, repo, err)
	} else if !ok {
		return "", fmt.Errorf("%s: branch %q: %w", c, branch, core.ErrNotFound)
	}
	return ref, nil
}
