package apijson

import (
	"strings"

	"github.com/hearth-forge/hearth/core/domain"
)

// PushHookCommitLimit is how many commits a push payload carries at most
// (GitLab's data builder keeps the newest 20).
const PushHookCommitLimit = 20

// Push hook object kinds: tags get their own.
const (
	ObjectKindPush    = "push"
	ObjectKindTagPush = "tag_push"
)

// PushHookCommit is one pushed commit with the paths it changed against
// its first parent. As GitLab counts them, a renamed or new file is in
// Added (under its new path), a deleted one in Removed, any other change
// in Modified.
type PushHookCommit struct {
	domain.PushCommit
	Added    []string
	Modified []string
	Removed  []string
}

// PushHookInput is one ref update of a push, branch or tag.
type PushHookInput struct {
	Project HookProjectInput
	Pusher  domain.User
	Ref     string // full name: refs/heads/x or refs/tags/x
	Before  string // domain.ZeroID for a new ref
	After   string // domain.ZeroID for a deleted ref
	// CheckoutSHA is the commit a tag points at (peeled); for branches it
	// may stay empty and After is used. A deleted ref has none.
	CheckoutSHA string
	// Message is an annotated tag's message; empty sends null.
	Message string
	// Commits are the pushed commits newest first, as domain.PushEvent
	// carries them; only the newest PushHookCommitLimit are sent.
	Commits []PushHookCommit
	// TotalCommits counts every pushed commit; 0 means len(Commits).
	TotalCommits int
}

// PushHook is GitLab 9.x's push and tag push payload.
type PushHook struct {
	ObjectKind        string             `json:"object_kind"`
	Before            string             `json:"before"`
	After             string             `json:"after"`
	Ref               string             `json:"ref"`
	CheckoutSHA       *string            `json:"checkout_sha"`
	Message           *string            `json:"message"`
	UserID            int64              `json:"user_id"`
	UserName          string             `json:"user_name"`
	UserUsername      string             `json:"user_username"`
	UserEmail         string             `json:"user_email"`
	UserAvatar        *string            `json:"user_avatar"`
	ProjectID         int64              `json:"project_id"`
	Project           HookProject        `json:"project"`
	Repository        HookPushRepository `json:"repository"`
	Commits           []HookCommit       `json:"commits"`
	TotalCommitsCount int                `json:"total_commits_count"`
}

// HookCommit is GitLab 9.x's Commit#hook_attrs with its changed files.
type HookCommit struct {
	ID        string           `json:"id"`
	Message   string           `json:"message"`
	Timestamp string           `json:"timestamp"`
	URL       string           `json:"url"`
	Author    HookCommitAuthor `json:"author"`
	Added     []string         `json:"added"`
	Modified  []string         `json:"modified"`
	Removed   []string         `json:"removed"`
}

// HookCommitAuthor names a commit's author.
type HookCommitAuthor struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// commitTimestampLayout is Ruby's Time#xmlschema for a commit date, which
// keeps the committer's own offset ("2011-12-12T14:27:31+02:00").
const commitTimestampLayout = "2006-01-02T15:04:05-07:00"

// PushPayload builds the push (or, for refs/tags/, tag push) payload.
func PushPayload(in PushHookInput) PushHook {
	kind := ObjectKindPush
	if strings.HasPrefix(in.Ref, domain.TagPrefix) {
		kind = ObjectKindTagPush
	}
	var checkout *string
	if in.After != domain.ZeroID {
		sha := in.CheckoutSHA
		if sha == "" {
			sha = in.After
		}
		checkout = &sha
	}
	total := in.TotalCommits
	if total == 0 {
		total = len(in.Commits)
	}
	// GitLab sends the newest commits oldest first.
	newest := in.Commits[:min(len(in.Commits), PushHookCommitLimit)]
	commits := make([]HookCommit, 0, len(newest))
	for i := len(newest) - 1; i >= 0; i-- {
		commits = append(commits, hookCommit(in.Project.WebURL, newest[i]))
	}
	proj := hookProject(in.Project)
	return PushHook{
		ObjectKind: kind, Before: in.Before, After: in.After, Ref: in.Ref,
		CheckoutSHA: checkout, Message: nonEmpty(in.Message),
		UserID: in.Pusher.ID, UserName: in.Pusher.Name, UserUsername: in.Pusher.Username,
		UserEmail: in.Pusher.Email, UserAvatar: nonEmpty(in.Pusher.AvatarURL),
		ProjectID: in.Project.Project.ID, Project: proj,
		Repository: HookPushRepository{
			Name: proj.Name, URL: proj.URL, Description: proj.Description, Homepage: proj.Homepage,
			GitHTTPURL: proj.GitHTTPURL, GitSSHURL: proj.GitSSHURL, VisibilityLevel: proj.VisibilityLevel,
		},
		Commits: commits, TotalCommitsCount: total,
	}
}

func hookCommit(webURL string, c PushHookCommit) HookCommit {
	return HookCommit{
		ID: c.ID, Message: c.Message, Timestamp: c.Timestamp.Format(commitTimestampLayout),
		URL:    webURL + "/commit/" + c.ID,
		Author: HookCommitAuthor{Name: c.Author.Name, Email: c.Author.Email},
		Added:  paths(c.Added), Modified: paths(c.Modified), Removed: paths(c.Removed),
	}
}

// paths keeps empty lists as [] rather than null, as GitLab sends them.
func paths(p []string) []string {
	if p == nil {
		return []string{}
	}
	return p
}
