package repository

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// GitLab's messages (app/services/commits/*, app/services/files/*).
const (
	msgNoPushToBranch = "You are not allowed to push into this branch"
	msgCherryPick     = "Sorry, we cannot cherry-pick this commit automatically. This commit may already have been cherry-picked, or a more recent commit may have updated some of its content."
	msgBranchMoved    = "The branch changed too often while the commit was being written; try again"
)

// maxRefAttempts bounds how often one write is redone against a branch
// head that moved meanwhile (another commit, a push).
const maxRefAttempts = 40

// commitRoutes lists the commit endpoints (commit statuses belong to CI).
func (h handlers) commitRoutes() []httpx.Route {
	const base = "/projects/{id}/repository/commits"
	return []httpx.Route{
		{Method: http.MethodGet, Pattern: base, Handle: h.listCommits},
		{Method: http.MethodPost, Pattern: base, Handle: h.createCommit},
		{Method: http.MethodGet, Pattern: base + "/{sha}", Handle: h.getCommit},
		{Method: http.MethodGet, Pattern: base + "/{sha}/diff", Handle: h.commitDiff},
		{Method: http.MethodPost, Pattern: base + "/{sha}/cherry_pick", Handle: h.cherryPick},
		{Method: http.MethodGet, Pattern: base + "/{sha}/comments", Handle: h.listCommitComments},
		{Method: http.MethodPost, Pattern: base + "/{sha}/comments", Handle: h.createCommitComment},
	}
}

// backendErr maps a RepoBackend failure: a missing thing is GitLab's 404 of
// what, hostile or malformed input stays a 400, anything else is wrapped
// (a 500).
func backendErr(err error, what, doing string) error {
	switch {
	case errors.Is(err, core.ErrNotFound):
		return core.NotFound(what)
	case errors.Is(err, core.ErrInvalid):
		return err
	}
	return fmt.Errorf("%s: %w", doing, err)
}

// revParam reads an URL-encoded revision path parameter ({sha}).
func revParam(r *http.Request, name, what string) (string, error) {
	s, err := httpx.PathParam(r, name)
	if err != nil {
		return "", err
	}
	if s == "" {
		return "", core.NotFound(what)
	}
	return s, nil
}

// defaultRef is the ref reads use when the client names none.
func defaultRef(p *domain.Project) string {
	if p.DefaultBranch != "" {
		return p.DefaultBranch
	}
	return "master"
}

// commitOf reads the commit {sha} names (a hash, branch or tag).
func (h handlers) commitOf(r *http.Request, p *domain.Project) (domain.Commit, error) {
	rev, err := revParam(r, "sha", "Commit")
	if err != nil {
		return domain.Commit{}, err
	}
	c, err := h.s.p.Repos.Commit(r.Context(), repoOf(p), rev)
	if err != nil {
		return domain.Commit{}, backendErr(err, "Commit", "read commit")
	}
	return c, nil
}

// GET /projects/:id/repository/commits
func (h handlers) listCommits(w http.ResponseWriter, r *http.Request) error {
	p, _, err := h.readable(r)
	if err != nil {
		return err
	}
	var in struct {
		RefName string     `param:"ref_name"`
		Since   *time.Time `param:"since"`
		Until   *time.Time `param:"until"`
		Path    string     `param:"path"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	ref := in.RefName
	if ref == "" {
		ref = defaultRef(p)
	}
	q := domain.LogQuery{Ref: ref, Path: strings.Trim(in.Path, "/"), Since: in.Since, Until: in.Until}
	ctx, repo := r.Context(), repoOf(p)
	// Count and page from one commit, so both see the same history even
	// when the branch moves meanwhile (and the count can be cached).
	head, err := h.s.p.Repos.Resolve(ctx, repo, ref)
	if err == nil {
		q.Ref = head
	}
	var total int
	if err == nil {
		total, err = h.s.counts.count(ctx, h.s.p.Repos, repo, q)
	}
	if errors.Is(err, core.ErrNotFound) {
		// GitLab lists nothing for an unknown ref or an empty repository.
		return httpx.Paginated(w, r, []commitJSON{}, 0, pg)
	}
	if err != nil {
		return backendErr(err, "Commit", "count commits")
	}
	out := []commitJSON{}
	if skip := pg.Offset(); skip < total {
		q.Skip, q.Limit = skip, pg.PerPage
		commits, err := h.s.p.Repos.Log(ctx, repo, q)
		if err != nil && !errors.Is(err, core.ErrNotFound) {
			return backendErr(err, "Commit", "list commits")
		}
		for _, c := range commits {
			out = append(out, newCommitJSON(c))
		}
	}
	return httpx.Paginated(w, r, out, total, pg)
}

// GET /projects/:id/repository/commits/:sha
func (h handlers) getCommit(w http.ResponseWriter, r *http.Request) error {
	p, _, err := h.readable(r)
	if err != nil {
		return err
	}
	c, err := h.commitOf(r, p)
	if err != nil {
		return err
	}
	st, err := h.s.p.Repos.CommitStats(r.Context(), repoOf(p), c.ID)
	if err != nil {
		return backendErr(err, "Commit", "commit stats")
	}
	return httpx.OK(w, newCommitDetailJSON(c, st))
}

// GET /projects/:id/repository/commits/:sha/diff
func (h handlers) commitDiff(w http.ResponseWriter, r *http.Request) error {
	p, _, err := h.readable(r)
	if err != nil {
		return err
	}
	c, err := h.commitOf(r, p)
	if err != nil {
		return err
	}
	diffs, err := h.s.p.Repos.Diff(r.Context(), repoOf(p), "", c.ID)
	if err != nil {
		return backendErr(err, "Commit", "diff of commit")
	}
	return renderDiffs(w, r, diffs)
}

// renderDiffs answers every diff entry (GitLab 9.x), or one page of them
// when the client asks for a page.
func renderDiffs(w http.ResponseWriter, r *http.Request, diffs []domain.FileDiff) error {
	out := newDiffsJSON(diffs)
	params, err := httpx.ParamsOf(r)
	if err != nil {
		return err
	}
	if !params.Has("page") && !params.Has("per_page") {
		return httpx.OK(w, out)
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	return httpx.Paginated(w, r, pageOf(out, pg), len(out), pg)
}

// pageOf slices one page out of a full list.
func pageOf[T any](all []T, pg domain.Page) []T {
	from := min(pg.Offset(), len(all))
	to := min(from+pg.PerPage, len(all))
	return append(make([]T, 0, to-from), all[from:to]...)
}

// commitActionParam is one action of a multi-file commit body.
type commitActionParam struct {
	Action       string  `json:"action"`
	FilePath     string  `json:"file_path"`
	PreviousPath *string `json:"previous_path"`
	Content      *string `json:"content"`
	Encoding     string  `json:"encoding"`
}

// decodeContent turns a text or base64 content parameter into bytes.
func decodeContent(content, encoding, contentName, encodingName string) ([]byte, error) {
	switch encoding {
	case "", "text":
		return []byte(content), nil
	case "base64":
		// Ruby's decode64 ignores line breaks; so do we.
		s := strings.NewReplacer("\n", "", "\r", "").Replace(content)
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			if b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "=")); err != nil {
				return nil, core.InvalidParam(contentName)
			}
		}
		return b, nil
	}
	return nil, &core.Error{Kind: core.ErrInvalid, Param: true, Msg: encodingName + " does not have a valid value"}
}

// fileActions validates a multi-file commit's actions with GitLab's
// messages (Files::MultiService) and decodes their content.
func fileActions(in []commitActionParam) ([]domain.FileAction, error) {
	out := make([]domain.FileAction, 0, len(in))
	for i, a := range in {
		if a.FilePath == "" {
			return nil, core.BadRequest("You must specify a file_path.")
		}
		fa := domain.FileAction{Action: a.Action, Path: a.FilePath}
		switch a.Action {
		case domain.FileCreate, domain.FileUpdate:
			if a.Content == nil {
				return nil, core.MissingParam(fmt.Sprintf("actions[%d][content]", i))
			}
		case domain.FileDelete:
		case domain.FileMove:
			if a.PreviousPath == nil || *a.PreviousPath == "" {
				return nil, core.BadRequest(fmt.Sprintf("You must supply the original file path when moving file `%s`.", a.FilePath))
			}
			fa.PreviousPath = *a.PreviousPath
		default:
			return nil, core.BadRequest(fmt.Sprintf("Unknown action type `%s`.", a.Action))
		}
		if a.Content != nil && a.Action != domain.FileDelete {
			b, err := decodeContent(*a.Content, a.Encoding, fmt.Sprintf("actions[%d][content]", i), fmt.Sprintf("actions[%d][encoding]", i))
			if err != nil {
				return nil, err
			}
			fa.Content = b
		}
		out = append(out, fa)
	}
	return out, nil
}

// POST /projects/:id/repository/commits
func (h handlers) createCommit(w http.ResponseWriter, r *http.Request) error {
	caller, p, rights, err := h.writable(r, domain.Developer)
	if err != nil {
		return err
	}
	var in struct {
		Branch        string              `param:"branch,required,nul"`
		CommitMessage string              `param:"commit_message,required"`
		Actions       []commitActionParam `param:"actions,required"`
		StartBranch   string              `param:"start_branch"`
		AuthorEmail   string              `param:"author_email"`
		AuthorName    string              `param:"author_name"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	actions, err := fileActions(in.Actions)
	if err != nil {
		return err
	}
	c, err := h.s.commitFiles(r.Context(), caller, p, rights, fileCommit{
		branch: in.Branch, startBranch: in.StartBranch, message: in.CommitMessage,
		authorName: in.AuthorName, authorEmail: in.AuthorEmail, actions: actions,
	})
	if err != nil {
		return err
	}
	// The commit has landed: a failure to count its lines must not tell
	// the client it failed (it would retry and commit twice).
	st, err := h.s.p.Repos.CommitStats(r.Context(), repoOf(p), c.ID)
	if err != nil {
		httpx.Logger(r).Error("stats of new commit", zap.String("commit", c.ID), zap.Error(err))
	}
	return httpx.Created(w, newCommitDetailJSON(c, st))
}

// fileCommit is one commit of file actions asked through the API.
type fileCommit struct {
	branch, startBranch     string
	message                 string
	authorName, authorEmail string
	actions                 []domain.FileAction
	// lastCommitID, when set, must be the last commit that changed
	// actions[0]'s path on the branch (GitLab's update check).
	lastCommitID string
}

// checkBranchPush applies GitLab's push rules to an API write on branch:
// archived projects are read-only (403), protected branches take masters,
// or developers when developers may push (400, as GitLab answers).
func (s *Service) checkBranchPush(ctx context.Context, p *domain.Project, rights access.Rights, branch string) error {
	if p.Archived {
		return core.Forbidden("")
	}
	rules, err := s.p.Protected.List(ctx, p.ID)
	if err != nil {
		return fmt.Errorf("protected branches of project %d: %w", p.ID, err)
	}
	if ok, _ := canPush(rights, rules, branch); !ok {
		return core.BadRequest(msgNoPushToBranch)
	}
	return nil
}

// callerSignature is the caller as author or committer.
func (s *Service) callerSignature(caller *domain.Caller) domain.Signature {
	return domain.Signature{Name: caller.User.Name, Email: caller.User.Email, When: s.now()}
}

// retryable tells whether a ref write lost a race worth redoing.
func retryable(err error) bool {
	return errors.Is(err, core.ErrStale) || errors.Is(err, core.ErrConflict)
}

// backoff sleeps a little, longer after each lost race, or returns the
// context's error.
func backoff(ctx context.Context, attempt int) error {
	ceiling := min(10*time.Millisecond<<min(attempt, 7), time.Second)
	d := time.Millisecond + rand.N(ceiling)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// commitFiles writes one commit on a branch, redoing it against the new
// head when the branch moved meanwhile (the actions are path-based, as in
// GitLab), then publishes the push.
func (s *Service) commitFiles(ctx context.Context, caller *domain.Caller, p *domain.Project, rights access.Rights, fc fileCommit) (domain.Commit, error) {
	if err := s.checkBranchPush(ctx, p, rights, fc.branch); err != nil {
		return domain.Commit{}, err
	}
	repo := repoOf(p)
	committer := s.callerSignature(caller)
	author := committer
	if fc.authorName != "" {
		author.Name = fc.authorName
	}
	if fc.authorEmail != "" {
		author.Email = fc.authorEmail
	}
	for attempt := 0; ; attempt++ {
		before := domain.ZeroID
		start := ""
		b, err := s.p.Repos.Branch(ctx, repo, fc.branch)
		switch {
		case err == nil:
			before = b.Commit.ID
		case errors.Is(err, core.ErrNotFound):
			if fc.startBranch != "" && fc.startBranch != fc.branch {
				empty, err := s.p.Repos.IsEmpty(ctx, repo)
				if err != nil {
					return domain.Commit{}, fmt.Errorf("is %s empty: %w", repo, err)
				}
				if !empty {
					start = fc.startBranch
				}
			}
		default:
			return domain.Commit{}, backendErr(err, "Branch", "read branch")
		}
		if fc.lastCommitID != "" && before != domain.ZeroID && len(fc.actions) > 0 {
			if err := s.checkLastCommit(ctx, repo, before, fc.actions[0].Path, fc.lastCommitID); err != nil {
				return domain.Commit{}, err
			}
		}
		actions := slices.Clone(fc.actions)
		c, err := s.p.Repos.CommitFiles(ctx, repo, domain.CommitFiles{
			Branch: fc.branch, StartBranch: start, ExpectedHead: before, Message: fc.message,
			Author: author, Committer: committer, Actions: actions,
		})
		if err == nil {
			done := context.WithoutCancel(ctx)
			s.publishBranchCommit(done, p, caller, fc.branch, before, c)
			if len(c.ParentIDs) == 0 {
				s.adoptDefaultBranch(done, p, []domain.RefUpdate{{Ref: domain.BranchPrefix + fc.branch, OldID: domain.ZeroID, NewID: c.ID, FastForward: true}})
			}
			return c, nil
		}
		if !retryable(err) {
			return domain.Commit{}, backendErr(err, "Branch", "commit files")
		}
		if attempt+1 >= maxRefAttempts {
			return domain.Commit{}, core.Conflict(msgBranchMoved)
		}
		if err := backoff(ctx, attempt); err != nil {
			return domain.Commit{}, err
		}
	}
}

// checkLastCommit is GitLab's guard against updating a file that changed
// since the client read it.
func (s *Service) checkLastCommit(ctx context.Context, repo, head, path, want string) error {
	f, err := s.p.Repos.File(ctx, repo, head, path)
	if errors.Is(err, core.ErrNotFound) {
		return nil // the action reports the missing file
	}
	if err != nil {
		return backendErr(err, "File", "read file")
	}
	if f.LastCommitID != want {
		return core.BadRequest("You are attempting to update a file that has changed since you started editing it.")
	}
	return nil
}

// publishBranchCommit announces one new commit on a branch. Failures are
// logged: the commit is written and the branch moved.
func (s *Service) publishBranchCommit(ctx context.Context, p *domain.Project, caller *domain.Caller, branch, before string, c domain.Commit) {
	ev := domain.PushEvent{
		ProjectID: p.ID, Actor: caller.UserID(), Ref: domain.BranchPrefix + branch,
		Before: before, After: c.ID, TotalCommits: 1, At: s.now(),
		Commits: []domain.PushCommit{{ID: c.ID, Message: c.Message, Timestamp: c.Committer.When, Author: c.Author}},
	}
	if err := s.p.Bus.Publish(ctx, ev); err != nil {
		s.log.Error("push event of API commit", zap.Int64("project_id", p.ID), zap.String("branch", branch), zap.Error(err))
	}
}

// POST /projects/:id/repository/commits/:sha/cherry_pick
func (h handlers) cherryPick(w http.ResponseWriter, r *http.Request) error {
	caller, p, rights, err := h.writable(r, domain.Developer)
	if err != nil {
		return err
	}
	var in struct {
		Branch string `param:"branch,required,nul"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	ctx, repo := r.Context(), repoOf(p)
	commit, err := h.commitOf(r, p)
	if err != nil {
		return err
	}
	if _, err := h.s.p.Repos.Branch(ctx, repo, in.Branch); err != nil {
		return backendErr(err, "Branch", "read branch")
	}
	if err := h.s.checkBranchPush(ctx, p, rights, in.Branch); err != nil {
		return err
	}
	committer := h.s.callerSignature(caller)
	ref := domain.BranchPrefix + in.Branch
	for attempt := 0; ; attempt++ {
		b, err := h.s.p.Repos.Branch(ctx, repo, in.Branch)
		if err != nil {
			return backendErr(err, "Branch", "read branch")
		}
		res, err := h.s.p.Repos.CherryPick(ctx, repo, commit.ID, b.Commit.ID, committer)
		switch {
		case errors.Is(err, core.ErrInvalid):
			return core.BadRequest(msgCherryPick)
		case err != nil:
			return backendErr(err, "Commit", "cherry-pick")
		case len(res.Conflicts) > 0 || res.CommitID == "":
			return core.BadRequest(msgCherryPick)
		}
		err = h.s.p.Repos.UpdateRef(ctx, repo, ref, res.CommitID, b.Commit.ID)
		if err == nil {
			picked, err := h.s.p.Repos.Commit(ctx, repo, res.CommitID)
			if err != nil {
				return backendErr(err, "Commit", "read cherry-picked commit")
			}
			h.s.publishBranchCommit(context.WithoutCancel(ctx), p, caller, in.Branch, b.Commit.ID, picked)
			return httpx.Created(w, newCommitJSON(picked))
		}
		if errors.Is(err, core.ErrNotFound) {
			return core.NotFound("Branch")
		}
		if !retryable(err) {
			return backendErr(err, "Branch", "move branch")
		}
		if attempt+1 >= maxRefAttempts {
			return core.Conflict(msgBranchMoved)
		}
		if err := backoff(ctx, attempt); err != nil {
			return err
		}
	}
}

// commitNoteJSON is GitLab's CommitNote.
type commitNoteJSON struct {
	Note      string            `json:"note"`
	Path      *string           `json:"path"`
	Line      *int              `json:"line"`
	LineType  *string           `json:"line_type"`
	Author    apijson.UserBasic `json:"author"`
	CreatedAt httpx.Time        `json:"created_at"`
}

func newCommitNoteJSON(c domain.CommitComment, author apijson.UserBasic) commitNoteJSON {
	return commitNoteJSON{Note: c.Note, Path: c.Path, Line: c.Line, LineType: c.LineType, Author: author, CreatedAt: httpx.TimeOf(c.CreatedAt)}
}

// GET /projects/:id/repository/commits/:sha/comments
func (h handlers) listCommitComments(w http.ResponseWriter, r *http.Request) error {
	p, _, err := h.readable(r)
	if err != nil {
		return err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	c, err := h.commitOf(r, p)
	if err != nil {
		return err
	}
	ctx := r.Context()
	comments, total, err := h.s.p.Comments.List(ctx, p.ID, c.ID, pg)
	if err != nil {
		return fmt.Errorf("comments of %s: %w", c.ID, err)
	}
	ids := make([]int64, 0, len(comments))
	for _, cm := range comments {
		if !slices.Contains(ids, cm.AuthorID) {
			ids = append(ids, cm.AuthorID)
		}
	}
	users := map[int64]*domain.User{}
	if len(ids) > 0 {
		list, err := h.s.p.Users.GetMany(ctx, ids)
		if err != nil {
			return fmt.Errorf("comment authors: %w", err)
		}
		for i := range list {
			users[list[i].ID] = &list[i]
		}
	}
	base := httpx.BaseURL(r)
	out := make([]commitNoteJSON, 0, len(comments))
	for _, cm := range comments {
		var author apijson.UserBasic
		if u := users[cm.AuthorID]; u != nil {
			author = apijson.UserBasicOf(base, u)
		} else {
			author = apijson.UserBasic{ID: cm.AuthorID, Name: "Ghost User", Username: "ghost", State: "active", WebURL: base + "/ghost"}
		}
		out = append(out, newCommitNoteJSON(cm, author))
	}
	return httpx.Paginated(w, r, out, total, pg)
}

// POST /projects/:id/repository/commits/:sha/comments
func (h handlers) createCommitComment(w http.ResponseWriter, r *http.Request) error {
	caller, err := httpx.RequireUser(r)
	if err != nil {
		return err
	}
	p, _, err := h.readable(r)
	if err != nil {
		return err
	}
	var in struct {
		Note     string  `param:"note,required"`
		Path     *string `param:"path"`
		Line     *int    `param:"line"`
		LineType *string `param:"line_type"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	lineType := "new"
	if in.LineType != nil {
		if *in.LineType != "new" && *in.LineType != "old" {
			return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: "line_type does not have a valid value"}
		}
		lineType = *in.LineType
	}
	c, err := h.commitOf(r, p)
	if err != nil {
		return err
	}
	ctx := r.Context()
	cm := domain.CommitComment{ProjectID: p.ID, CommitID: c.ID, AuthorID: caller.UserID(), Note: in.Note}
	if in.Path != nil && in.Line != nil && *in.Path != "" {
		diffs, err := h.s.p.Repos.Diff(ctx, repoOf(p), "", c.ID)
		if err != nil {
			return backendErr(err, "Commit", "diff of commit")
		}
		if diffHasLine(diffs, *in.Path, *in.Line, lineType) {
			path, line, lt := *in.Path, *in.Line, lineType
			cm.Path, cm.Line, cm.LineType = &path, &line, &lt
		}
	}
	saved, err := h.s.p.Comments.Create(ctx, cm)
	if err != nil {
		return fmt.Errorf("save commit comment: %w", err)
	}
	return httpx.Created(w, newCommitNoteJSON(saved, apijson.UserBasicOf(httpx.BaseURL(r), caller.User)))
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
