package doctor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// pageSize is how many rows each list asks for.
const pageSize = 100

// repoState is what the run knows of one project's repository.
type repoState struct {
	project *domain.Project
	repo    string // domain.RepoPath
	label   string // `project "group/app" (id 3)`
	// missing: the repository is not there (and was not recreated).
	missing bool
	// branches by name, with their commits; nil until read.
	branches map[string]string
}

// loadBranches reads the repository's branches once.
func (st *repoState) loadBranches(ctx context.Context, r *run) (map[string]string, error) {
	if st.branches != nil {
		return st.branches, nil
	}
	list, err := r.s.p.Reader.Branches(ctx, st.repo)
	if err != nil {
		return nil, fmt.Errorf("branches of %s: %w", st.label, err)
	}
	st.branches = make(map[string]string, len(list))
	for _, b := range list {
		st.branches[b.Name] = b.Commit.ID
	}
	return st.branches, nil
}

// repositories checks every project's repository: there, sound, with
// its default branch and (a warning) its protected branches.
func (r *run) repositories(ctx context.Context) error {
	namespaces := map[int64]string{}
	for page := 1; ; page++ {
		list, _, err := r.s.p.Projects.List(ctx, domain.ProjectFilter{
			Readable: domain.ReadScope{All: true}, OrderBy: domain.OrderByID, Ascending: true,
			Page: domain.Page{Page: page, PerPage: pageSize},
		})
		if err != nil {
			return fmt.Errorf("list projects: %w", err)
		}
		for i := range list {
			p := &list[i]
			ns, ok := namespaces[p.NamespaceID]
			if !ok {
				n, err := r.s.p.Namespaces.Get(ctx, p.NamespaceID)
				if err != nil {
					return fmt.Errorf("namespace of project %d: %w", p.ID, err)
				}
				ns, namespaces[p.NamespaceID] = n.FullPath, n.FullPath
			}
			st := &repoState{project: p, repo: domain.RepoPath(p.ID),
				label: fmt.Sprintf("project %q (id %d)", ns+"/"+p.Path, p.ID)}
			r.repo[p.ID] = st
			r.rep.Projects++
			if err := r.repository(ctx, st); err != nil {
				return err
			}
		}
		if len(list) < pageSize {
			return nil
		}
	}
}

func (r *run) repository(ctx context.Context, st *repoState) error {
	p := st.project
	ok, err := r.s.p.Storage.Exists(ctx, st.repo)
	if err != nil {
		return fmt.Errorf("repository of %s: %w", st.label, err)
	}
	if !ok {
		st.missing = true
		r.problem(ctx, Error, fmt.Sprintf("%s: repository %s is missing", st.label, st.repo),
			"restore it from a backup; or `hearth doctor --repair` creates an empty repository so that the project works again (its history is lost)",
			func(ctx context.Context) (string, error) {
				if err := r.s.p.Storage.Create(ctx, st.repo, p.DefaultBranch); err != nil {
					return "", err
				}
				st.missing = false
				return "created an empty repository: the history is lost unless a backup is restored over it", nil
			})
		return nil
	}
	if r.fsck(ctx, st); st.missing {
		return nil
	}

	empty, err := r.s.p.Reader.IsEmpty(ctx, st.repo)
	if err != nil {
		return fmt.Errorf("repository of %s: %w", st.label, err)
	}
	if empty {
		return nil // no branch can exist yet
	}
	branches, err := st.loadBranches(ctx, r)
	if err != nil {
		return err
	}
	if p.DefaultBranch != "" {
		if _, ok := branches[p.DefaultBranch]; !ok {
			r.problem(ctx, Error, fmt.Sprintf("%s: default branch %q does not exist", st.label, p.DefaultBranch),
				"push the branch again, or make another branch the default (PUT /projects/:id with default_branch)", nil)
		}
	}
	rules, err := r.s.p.ProtectedBranches.List(ctx, p.ID)
	if err != nil {
		return fmt.Errorf("protected branches of %s: %w", st.label, err)
	}
	for _, rule := range rules {
		if strings.Contains(rule.Name, "*") {
			continue
		}
		if _, ok := branches[rule.Name]; !ok {
			r.problem(ctx, Warning, fmt.Sprintf("%s: protected branch %q does not exist", st.label, rule.Name),
				"nothing if it was protected ahead of its creation; otherwise push it again, or unprotect it", nil)
		}
	}
	return nil
}

// fsck checks the repository's objects within the time allowed.
func (r *run) fsck(ctx context.Context, st *repoState) {
	fctx, cancel := context.WithTimeout(ctx, r.opt.FsckTimeout)
	defer cancel()
	found, err := r.s.p.Checker.Fsck(fctx, st.repo)
	switch {
	case err != nil && fctx.Err() != nil && ctx.Err() == nil:
		r.problem(ctx, Warning, fmt.Sprintf("%s: the check of repository %s did not finish within %s", st.label, st.repo, r.opt.FsckTimeout),
			"run `git fsck` on the repository by hand, or rerun with a longer --fsck-timeout", nil)
	case errors.Is(err, core.ErrNotFound):
		st.missing = true
		r.problem(ctx, Error, fmt.Sprintf("%s: repository %s is not a git repository", st.label, st.repo),
			"restore it from a backup", nil)
	case err != nil:
		r.problem(ctx, Error, fmt.Sprintf("%s: repository %s could not be checked: %v", st.label, st.repo, err),
			"run `git fsck` on the repository by hand; restore it from a backup if it is damaged", nil)
	case len(found) > 0:
		r.problem(ctx, Error, fmt.Sprintf("%s: repository %s fails git fsck: %s", st.label, st.repo, strings.Join(found, "; ")),
			"restore the repository from a backup (the objects named are gone or damaged)", nil)
	}
}
