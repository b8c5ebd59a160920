package repository

import "time"

// The request parameters of the repository API, as httpx.Decode fills
// them from the query, a form or a JSON body.

// CreateBranchInput is POST /projects/:id/repository/branches.
type CreateBranchInput struct {
	Branch string `param:"branch,required,nul"`
	Ref    string `param:"ref,required"`
}

// ProtectBranchInput is PUT .../branches/:branch/protect: flags not given
// keep their value (false for a new rule), as GitLab's legacy API does.
type ProtectBranchInput struct {
	DevelopersCanPush  *bool `param:"developers_can_push"`
	DevelopersCanMerge *bool `param:"developers_can_merge"`
}

// CreateTagInput is POST /projects/:id/repository/tags.
type CreateTagInput struct {
	TagName            string  `param:"tag_name,required,nul"`
	Ref                string  `param:"ref,required"`
	Message            *string `param:"message"`
	ReleaseDescription *string `param:"release_description"`
}

// ReleaseInput is POST and PUT .../tags/:tag_name/release.
type ReleaseInput struct {
	Description string `param:"description,required"`
}

// ListCommitsInput is GET /projects/:id/repository/commits.
type ListCommitsInput struct {
	RefName string     `param:"ref_name"`
	Since   *time.Time `param:"since"`
	Until   *time.Time `param:"until"`
	Path    string     `param:"path"`
}

// CommitAction is one action of a multi-file commit body.
type CommitAction struct {
	Action       string  `json:"action"`
	FilePath     string  `json:"file_path"`
	PreviousPath *string `json:"previous_path"`
	Content      *string `json:"content"`
	Encoding     string  `json:"encoding"`
}

// CreateCommitInput is POST /projects/:id/repository/commits.
type CreateCommitInput struct {
	Branch        string         `param:"branch,required,nul"`
	CommitMessage string         `param:"commit_message,required"`
	Actions       []CommitAction `param:"actions,required"`
	StartBranch   string         `param:"start_branch"`
	AuthorEmail   string         `param:"author_email"`
	AuthorName    string         `param:"author_name"`
}

// CherryPickInput is POST .../commits/:sha/cherry_pick.
type CherryPickInput struct {
	Branch string `param:"branch,required,nul"`
}

// CommentInput is POST .../commits/:sha/comments.
type CommentInput struct {
	Note     string  `param:"note,required"`
	Path     *string `param:"path"`
	Line     *int    `param:"line"`
	LineType *string `param:"line_type"`
}

// TreeInput is GET /projects/:id/repository/tree.
type TreeInput struct {
	Ref       string `param:"ref"`
	Path      string `param:"path"`
	Recursive bool   `param:"recursive"`
}

// FileReadInput is GET .../files/:file_path[/raw]: ref is required.
type FileReadInput struct {
	Ref string `param:"ref,required"`
}

// FileWriteInput is POST, PUT and DELETE .../files/:file_path.
type FileWriteInput struct {
	Branch        string  `param:"branch,required,nul"`
	CommitMessage string  `param:"commit_message,required"`
	Content       *string `param:"content"`
	Encoding      string  `param:"encoding"`
	StartBranch   string  `param:"start_branch"`
	AuthorEmail   string  `param:"author_email"`
	AuthorName    string  `param:"author_name"`
	LastCommitID  string  `param:"last_commit_id"`
}

// CompareInput is GET /projects/:id/repository/compare.
type CompareInput struct {
	From     string `param:"from,required"`
	To       string `param:"to,required"`
	Straight bool   `param:"straight"`
}

// ArchiveInput is GET /projects/:id/repository/archive[.format].
type ArchiveInput struct {
	SHA    string `param:"sha"`
	Format string `param:"format"`
	// Suffix is the format the path names (archive.zip), "" for none.
	Suffix string
}

// ContributorsInput is GET /projects/:id/repository/contributors. GitLab
// 9.x takes no parameters; later versions add order_by, sort and ref,
// accepted here too. Unset, the list keeps 9.x's order.
type ContributorsInput struct {
	OrderBy *string `param:"order_by"`
	Sort    *string `param:"sort"`
	Ref     string  `param:"ref"`
}

// CreateProtectedBranchInput is POST /projects/:id/protected_branches;
// levels not given are 40 (masters).
type CreateProtectedBranchInput struct {
	Name             string `param:"name,required"`
	PushAccessLevel  *int   `param:"push_access_level"`
	MergeAccessLevel *int   `param:"merge_access_level"`
}
