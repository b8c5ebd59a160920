package gitcli

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hearth-forge/hearth/adapters/git/gitinput"
	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// mergeTrees runs merge-tree --write-tree on two commits: the merged tree,
// or the conflicting paths (sorted, each once). merge-tree writes the
// trees and blobs it builds to the object database even for a dry run or a
// conflict; nothing refers to them and gc collects them.
func (b *Backend) mergeTrees(ctx context.Context, gitDir, ours, theirs string) (string, []string, error) {
	out, err := b.runIn(ctx, gitDir, "merge-tree", "--write-tree", "--name-only", "-z",
		"--no-messages", ours, theirs)
	if err != nil && exitCode(err) != 1 {
		var ge *gitError
		if errors.As(err, &ge) && strings.Contains(ge.stderr, "unrelated histories") {
			return "", nil, core.BadRequest(gitinput.MsgNoCommonHistory)
		}
		return "", nil, err
	}
	fields := strings.Split(string(out), "\x00")
	tree := fields[0]
	if !gitnames.IsOID(tree) {
		return "", nil, fmt.Errorf("merge-tree: unexpected output %q", out)
	}
	if err == nil {
		return tree, nil, nil
	}
	seen := map[string]bool{}
	var conflicts []string
	for _, f := range fields[1:] {
		if f == "" {
			break // end of the conflicted file list
		}
		if !seen[f] {
			seen[f] = true
			conflicts = append(conflicts, f)
		}
	}
	sort.Strings(conflicts)
	if len(conflicts) == 0 {
		return "", nil, fmt.Errorf("merge-tree reported a conflict without paths")
	}
	return tree, conflicts, nil
}

// dryMerge is the answer of a dry-run merge of two commits.
type dryMerge struct {
	tree      string
	conflicts []string
}

// dryMerge reports what merging theirs into ours would give, remembered
// per pair of commits (merge requests ask on every read). Only dry runs
// use the cache: the tree merge-tree wrote is unreferenced and gc may
// prune it, so a real merge always writes its own.
func (b *Backend) dryMerge(ctx context.Context, repo, gitDir, ours, theirs string) (domain.MergeResult, error) {
	key := mergedKey{gitDir, ours, theirs}
	m, ok := b.dryMerges.get(key)
	if !ok {
		tree, conflicts, err := b.mergeTrees(ctx, gitDir, ours, theirs)
		if err != nil {
			return domain.MergeResult{}, fmt.Errorf("gitcli: merge in %s: %w", repo, err)
		}
		m = dryMerge{tree, conflicts}
		b.dryMerges.put(key, m)
	}
	if len(m.conflicts) > 0 {
		return domain.MergeResult{Conflicts: append([]string(nil), m.conflicts...)}, nil
	}
	return domain.MergeResult{TreeID: m.tree}, nil
}

// Merge writes a merge commit of req.Theirs into req.Ours.
func (b *Backend) Merge(ctx context.Context, repo string, req domain.MergeSpec) (domain.MergeResult, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return domain.MergeResult{}, err
	}
	if err := check.Merge(req); err != nil {
		return domain.MergeResult{}, err
	}
	ids, err := b.resolveCommits(ctx, gitDir, req.Ours, req.Theirs)
	if err != nil {
		return domain.MergeResult{}, fmt.Errorf("gitcli: merge in %s: %w", repo, err)
	}
	if req.DryRun {
		return b.dryMerge(ctx, repo, gitDir, ids[0], ids[1])
	}
	tree, conflicts, err := b.mergeTrees(ctx, gitDir, ids[0], ids[1])
	if err != nil {
		return domain.MergeResult{}, fmt.Errorf("gitcli: merge in %s: %w", repo, err)
	}
	if len(conflicts) > 0 {
		return domain.MergeResult{Conflicts: conflicts}, nil
	}
	id, err := b.commitTree(ctx, gitDir, tree, ids, req.Message, req.Author, req.Committer)
	if err != nil {
		return domain.MergeResult{}, fmt.Errorf("gitcli: merge in %s: %w", repo, err)
	}
	return domain.MergeResult{CommitID: id, TreeID: tree}, nil
}

// CherryPick writes a commit applying the change of sha on top of onto.
//
// git 2.39's merge-tree has no --merge-base, so the three-way merge of
// (parent tree, onto tree, commit tree) is asked of it through two
// synthetic commits sharing a synthetic root whose tree is the parent's:
// their merge base is exactly that root. The three helper commits are
// unreferenced objects, collected by gc.
func (b *Backend) CherryPick(ctx context.Context, repo, sha, onto string, committer domain.Signature) (domain.MergeResult, error) {
	gitDir, err := b.open(repo)
	if err != nil {
		return domain.MergeResult{}, err
	}
	if err := check.CherryPick(sha, onto, committer); err != nil {
		return domain.MergeResult{}, err
	}
	var pick, target domain.Commit
	baseTree := gitobject.EmptyTree
	err = b.withCatFile(ctx, gitDir, func(c *catFile) error {
		if pick, err = b.resolveCommit(c, gitDir, sha); err != nil {
			return err
		}
		if target, err = b.resolveCommit(c, gitDir, onto); err != nil {
			return err
		}
		if err := check.CherryPickable(pick); err != nil {
			return err
		}
		if len(pick.ParentIDs) == 1 {
			parent, err := gitobject.ReadCommit(c, pick.ParentIDs[0])
			if err != nil {
				return err
			}
			baseTree = parent.TreeID
		}
		return nil
	})
	if err != nil {
		return domain.MergeResult{}, fmt.Errorf("gitcli: cherry-pick in %s: %w", repo, err)
	}
	fail := func(err error) (domain.MergeResult, error) {
		return domain.MergeResult{}, fmt.Errorf("gitcli: cherry-pick in %s: %w", repo, err)
	}
	if baseTree == gitobject.EmptyTree {
		// Make sure the empty tree exists as an object for commit-tree.
		if _, err := b.writeTree(ctx, gitDir, gitobject.NewFlatTree()); err != nil {
			return fail(err)
		}
	}
	helper := domain.Signature{Name: "hearth", Email: "hearth@localhost", When: committer.When}
	root, err := b.commitTree(ctx, gitDir, baseTree, nil, "cherry-pick base\n", helper, helper)
	if err != nil {
		return fail(err)
	}
	ours, err := b.commitTree(ctx, gitDir, target.TreeID, []string{root}, "cherry-pick onto\n", helper, helper)
	if err != nil {
		return fail(err)
	}
	theirs, err := b.commitTree(ctx, gitDir, pick.TreeID, []string{root}, "cherry-pick change\n", helper, helper)
	if err != nil {
		return fail(err)
	}
	tree, conflicts, err := b.mergeTrees(ctx, gitDir, ours, theirs)
	if err != nil {
		return fail(err)
	}
	if len(conflicts) > 0 {
		return domain.MergeResult{Conflicts: conflicts}, nil
	}
	if tree == target.TreeID {
		return domain.MergeResult{}, core.BadRequest(gitinput.MsgNothingToPick)
	}
	id, err := b.commitTree(ctx, gitDir, tree, []string{target.ID}, pick.Message, pick.Author, committer)
	if err != nil {
		return fail(err)
	}
	return domain.MergeResult{CommitID: id, TreeID: tree}, nil
}
