package doctor

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// mergeRequests checks that the source and target branches of every open
// merge request exist. (Merge requests keep no refs of their own: the
// refs/merge-requests/ namespace is reserved, not written.)
func (r *run) mergeRequests(ctx context.Context) error {
	reported := map[string]bool{} // "projectID branch": one line per branch
	for page := 1; ; page++ {
		list, _, err := r.s.p.MergeRequests.List(ctx, domain.MergeRequestFilter{
			Readable: domain.ReadScope{All: true}, States: []domain.MergeRequestState{domain.MROpened, domain.MRReopened},
			OrderBy: "created_at", Ascending: true, Page: domain.Page{Page: page, PerPage: pageSize},
		})
		if err != nil {
			return fmt.Errorf("list open merge requests: %w", err)
		}
		for i := range list {
			m := &list[i]
			r.rep.MergeRequests++
			for _, side := range []struct {
				kind      string
				projectID int64
				branch    string
				sha       string
			}{
				{"source", m.SourceProjectID, m.SourceBranch, m.SourceSHA},
				{"target", m.TargetProjectID, m.TargetBranch, m.TargetSHA},
			} {
				key := fmt.Sprintf("%d %s", side.projectID, side.branch)
				if reported[key] {
					continue
				}
				missing, err := r.branchMissing(ctx, m, side.kind, side.projectID, side.branch, side.sha)
				if err != nil {
					return err
				}
				reported[key] = missing
			}
		}
		if len(list) < pageSize {
			return nil
		}
	}
}

// branchMissing reports the branch of merge request m when its
// repository lacks it; a repository that is missing altogether was
// reported already.
func (r *run) branchMissing(ctx context.Context, m *domain.MergeRequest, kind string, projectID int64, branch, sha string) (bool, error) {
	st := r.repo[projectID]
	target := r.repo[m.ProjectID]
	if st == nil || st.missing || target == nil {
		return false, nil
	}
	branches, err := st.loadBranches(ctx, r)
	if err != nil {
		return false, err
	}
	if _, ok := branches[branch]; ok {
		return false, nil
	}
	what := fmt.Sprintf("%s: merge request !%d: %s branch %q is missing", st.label, m.IID, kind, branch)
	if st != target {
		what = fmt.Sprintf("%s: merge request !%d of %s: %s branch %q is missing", st.label, m.IID, target.label, kind, branch)
	}
	known := false
	if sha != "" {
		_, err := r.s.p.Reader.Commit(ctx, st.repo, sha)
		switch {
		case err == nil:
			known = true
		case !errors.Is(err, core.ErrNotFound) && !errors.Is(err, core.ErrInvalid):
			return false, fmt.Errorf("commit %s of %s: %w", sha, st.label, err)
		}
	}
	if !known {
		fix := "push the branch again, or close the merge request"
		if sha != "" {
			fix += fmt.Sprintf(" (commit %s, which the merge request recorded, is gone too)", sha)
		}
		r.problem(ctx, Error, what, fix, nil)
		return true, nil
	}
	r.problem(ctx, Error, what,
		fmt.Sprintf("recreate it at %s, the head the merge request recorded (`hearth doctor --repair` does), or close the merge request if the branch was deleted on purpose", sha),
		func(ctx context.Context) (string, error) {
			// Compare-and-swap on "absent": a branch pushed meanwhile stays.
			if err := r.s.p.Writer.UpdateRef(ctx, st.repo, domain.BranchPrefix+branch, sha, domain.ZeroID); err != nil {
				return "", err
			}
			branches[branch] = sha
			return fmt.Sprintf("recreated branch %q at %s", branch, sha), nil
		})
	return true, nil
}
