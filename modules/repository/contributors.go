package repository

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// contributorsWindow is how much history GitLab reads for the list: the
// newest 2000 commits that are not merges.
const contributorsWindow = 2000

// errNoContributors is what GitLab answers when it cannot read the
// history at all (an empty repository): its bare 404.
var errNoContributors = &core.Error{Kind: core.ErrNotFound, Msg: "404 Not Found"}

// Contributors lists the authors of the newest non-merge commits of the
// default branch (in.Ref when given), grouped by author email: in the order
// of each one's newest commit (GitLab 9.x), or sorted as in.OrderBy and
// in.Sort ask (later GitLab). An empty repository is GitLab's 404; an
// unknown ref in one that has commits lists nobody.
func (s *Service) Contributors(ctx context.Context, req Request, in ContributorsInput) ([]domain.Contributor, error) {
	t, err := s.target(ctx, req, toRead)
	if err != nil {
		return nil, err
	}
	if err := in.check(); err != nil {
		return nil, err
	}
	rev := in.Ref
	if rev == "" {
		rev = defaultRef(t.Project)
	}
	repo := repoOf(t.Project)
	list, err := s.p.Reader.Contributors(ctx, repo, rev, contributorsWindow)
	if errors.Is(err, core.ErrNotFound) {
		empty, emptyErr := s.p.Reader.IsEmpty(ctx, repo)
		if emptyErr != nil && !errors.Is(emptyErr, core.ErrNotFound) {
			return nil, backendErr(emptyErr, "Project", "read repository")
		}
		if empty || emptyErr != nil {
			return nil, errNoContributors
		}
		return []domain.Contributor{}, nil
	}
	if err != nil {
		return nil, backendErr(err, "Ref", "list contributors")
	}
	sortContributors(list, in.OrderBy, in.Sort)
	return list, nil
}

// sortContributors is GitLab's Commit.order_by: names and emails compare
// ignoring ASCII case, commits as numbers; order_by alone sorts ascending,
// sort alone sorts by commits (Grape's defaults). Ties keep the history's
// order.
func sortContributors(list []domain.Contributor, orderBy, sort *string) {
	if orderBy == nil && sort == nil {
		return
	}
	by := "commits"
	if orderBy != nil {
		by = *orderBy
	}
	desc := sort != nil && *sort == "desc"
	slices.SortStableFunc(list, func(a, b domain.Contributor) int {
		if desc {
			a, b = b, a
		}
		switch by {
		case "name":
			return asciiFoldCompare(a.Name, b.Name)
		case "email":
			return asciiFoldCompare(a.Email, b.Email)
		}
		return cmp.Compare(a.Commits, b.Commits)
	})
}

// asciiFoldCompare is Ruby's String#casecmp: bytes compared with A-Z
// folded to a-z, nothing else folded.
func asciiFoldCompare(a, b string) int {
	fold := func(c byte) byte {
		if c >= 'A' && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := cmp.Compare(fold(a[i]), fold(b[i])); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}
