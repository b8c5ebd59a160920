package repository

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hearth-forge/hearth/core/domain"
)

// CommitNote is a commit comment with its author, nil when the author's
// account is gone (GitLab shows its ghost user).
type CommitNote struct {
	domain.CommitComment
	Author *domain.User
}

// ListCommitComments lists one page of the comments on the commit rev
// names, oldest first, and how many there are. Authors are read in one
// query, however many.
func (s *Service) ListCommitComments(ctx context.Context, req Request, rev string, pg domain.Page) ([]CommitNote, int, error) {
	t, err := s.target(ctx, req, toRead)
	if err != nil {
		return nil, 0, err
	}
	c, err := s.commitOf(ctx, t.Project, rev)
	if err != nil {
		return nil, 0, err
	}
	comments, total, err := s.p.Comments.List(ctx, t.Project.ID, c.ID, pg)
	if err != nil {
		return nil, 0, fmt.Errorf("comments of %s: %w", c.ID, err)
	}
	ids := make([]int64, 0, len(comments))
	for _, cm := range comments {
		if !slices.Contains(ids, cm.AuthorID) {
			ids = append(ids, cm.AuthorID)
		}
	}
	users := map[int64]*domain.User{}
	if len(ids) > 0 {
		list, err := s.p.Users.GetMany(ctx, ids)
		if err != nil {
			return nil, 0, fmt.Errorf("comment authors: %w", err)
		}
		for i := range list {
			users[list[i].ID] = &list[i]
		}
	}
	out := make([]CommitNote, 0, len(comments))
	for _, cm := range comments {
		out = append(out, CommitNote{CommitComment: cm, Author: users[cm.AuthorID]})
	}
	return out, total, nil
}

// CreateCommitComment comments on the commit rev names: on a line when
// in.Path and in.Line name one the commit's diff shows (added lines "new",
// removed ones "old"), else on the whole commit, as GitLab does.
func (s *Service) CreateCommitComment(ctx context.Context, req Request, rev string, in CommentInput) (CommitNote, error) {
	t, err := s.target(ctx, req, toComment)
	if err != nil {
		return CommitNote{}, err
	}
	lineType, err := commentLineType(in.LineType)
	if err != nil {
		return CommitNote{}, err
	}
	c, err := s.commitOf(ctx, t.Project, rev)
	if err != nil {
		return CommitNote{}, err
	}
	cm := domain.CommitComment{ProjectID: t.Project.ID, CommitID: c.ID, AuthorID: req.Caller.UserID(), Note: in.Note}
	if in.Path != nil && in.Line != nil && *in.Path != "" {
		diffs, err := s.p.Reader.Diff(ctx, repoOf(t.Project), "", c.ID)
		if err != nil {
			return CommitNote{}, backendErr(err, "Commit", "diff of commit")
		}
		if diffHasLine(diffs, *in.Path, *in.Line, lineType) {
			path, line, lt := *in.Path, *in.Line, lineType
			cm.Path, cm.Line, cm.LineType = &path, &line, &lt
		}
	}
	saved, err := s.saveComment(ctx, cm)
	if err != nil {
		return CommitNote{}, err
	}
	return CommitNote{CommitComment: saved, Author: req.Caller.User}, nil
}

// saveComment stores a commit comment and publishes it, in one
// transaction when the app has them.
func (s *Service) saveComment(ctx context.Context, cm domain.CommitComment) (domain.CommitComment, error) {
	var saved domain.CommitComment
	save := func(ctx context.Context) error {
		var err error
		if saved, err = s.p.Comments.Create(ctx, cm); err != nil {
			return fmt.Errorf("save commit comment: %w", err)
		}
		if err := s.p.Bus.Publish(ctx, domain.CommitCommentCreated{Comment: saved, Actor: cm.AuthorID}); err != nil {
			return fmt.Errorf("publish commit comment: %w", err)
		}
		return nil
	}
	if s.p.Tx == nil {
		return saved, save(ctx)
	}
	return saved, s.p.Tx.WithinTx(ctx, save)
}

// diffHasLine tells whether the diff of path has a line of lineType at new
// position line, as GitLab's diff parser numbers them: added lines are
// "new" at their new line number, removed lines "old" at the new line
// number where they were removed; context lines match neither.
func diffHasLine(diffs []domain.FileDiff, path string, line int, lineType string) bool {
	for _, d := range diffs {
		if d.NewPath != path {
			continue
		}
		newPos := 0
		for _, l := range strings.Split(d.Diff, "\n") {
			switch {
			case strings.HasPrefix(l, "@@"):
				newPos = hunkNewStart(l)
			case strings.HasPrefix(l, "\\"):
			case strings.HasPrefix(l, "+"):
				if lineType == "new" && newPos == line {
					return true
				}
				newPos++
			case strings.HasPrefix(l, "-"):
				if lineType == "old" && newPos == line {
					return true
				}
			case l == "" || l[0] == ' ':
				newPos++
			}
		}
	}
	return false
}

// hunkNewStart reads c out of "@@ -a,b +c,d @@".
func hunkNewStart(header string) int {
	for _, f := range strings.Fields(header) {
		if rest, ok := strings.CutPrefix(f, "+"); ok {
			n, _, _ := strings.Cut(rest, ",")
			if v, err := strconv.Atoi(n); err == nil {
				return v
			}
		}
	}
	return 0
}
