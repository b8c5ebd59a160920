package mergerequests

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/domain"
)

// closingPattern is GitLab's default issue closing pattern: a keyword,
// then one or more issue references.
var (
	closingPattern = regexp.MustCompile(`(?i)\b(?:clos(?:e[sd]?|ing)|fix(?:e[sd]|ing)?|resolv(?:e[sd]?|ing))\b:? +((?:(?:issues? +)?(?:[a-z0-9_.\-/]+)?#\d+(?:, *| +and +)?)+)`)
	issueRef       = regexp.MustCompile(`(?i)([a-z0-9_.\-/]+)?#(\d+)`)
)

// parseClosing returns the issue references text closes, in order, each once.
func parseClosing(text string) []domain.IssueRef {
	var out []domain.IssueRef
	seen := map[domain.IssueRef]bool{}
	for _, clause := range closingPattern.FindAllStringSubmatch(text, -1) {
		for _, ref := range issueRef.FindAllStringSubmatch(clause[1], -1) {
			iid, err := strconv.ParseInt(ref[2], 10, 64)
			if err != nil || iid <= 0 {
				continue
			}
			r := domain.IssueRef{Project: strings.ToLower(ref[1]), IID: iid}
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	return out
}

// closingRefList is what the description and the source commits'
// messages close ("#1", "group/project#4"). It reads git: compute it once
// per use.
func (s *Service) closingRefList(ctx context.Context, m *domain.MergeRequest) []domain.IssueRef {
	text := m.Description
	if m.SourceSHA != "" {
		q := domain.LogQuery{Ref: m.SourceSHA, Limit: 1000}
		if m.TargetSHA != "" {
			q.Exclude = []string{m.TargetSHA}
		}
		commits, err := s.p.Repos.Log(ctx, repoOf(m.SourceProjectID), q)
		if err != nil {
			s.log.Debug("commits of merge request for closing references", zap.Error(err))
		}
		for _, c := range commits {
			text += "\n" + c.Message
		}
	}
	return parseClosing(text)
}

// closingKeys resolves references to projects; references to projects
// that do not exist are dropped. Who may close what is the issues
// module's rule when it receives the merged event.
func (s *Service) closingKeys(ctx context.Context, m *domain.MergeRequest, refs []domain.IssueRef) []domain.IssueKey {
	var out []domain.IssueKey
	for _, r := range refs {
		pid := m.ProjectID
		if r.Project != "" {
			p, err := s.p.Projects.GetByFullPath(ctx, r.Project)
			if err != nil {
				continue
			}
			pid = p.ID
		}
		out = append(out, domain.IssueKey{ProjectID: pid, IID: r.IID})
	}
	return out
}

// sentence joins items the way Rails' to_sentence does ("a and b",
// "a, b, and c").
func sentence(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	case 2:
		return items[0] + " and " + items[1]
	}
	return strings.Join(items[:len(items)-1], ", ") + ", and " + items[len(items)-1]
}
