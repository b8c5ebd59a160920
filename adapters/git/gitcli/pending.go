package gitcli

// pending.go holds the RepoBackend methods of the repository issue that are
// not written yet; each answers core.ErrNotAllowed. The file goes away as
// they land.

import (
	"context"
	"io"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

func pending(name string) error {
	return core.NotAllowed("gitcli: " + name + " is not implemented yet")
}

func (b *Backend) DefaultBranch(ctx context.Context, repo string) (string, error) {
	return "", pending("DefaultBranch")
}
func (b *Backend) SetDefaultBranch(ctx context.Context, repo, branch string) error {
	return pending("SetDefaultBranch")
}
func (b *Backend) IsEmpty(ctx context.Context, repo string) (bool, error) {
	return false, pending("IsEmpty")
}
func (b *Backend) Resolve(ctx context.Context, repo, rev string) (string, error) {
	return "", pending("Resolve")
}
func (b *Backend) Branches(ctx context.Context, repo string) ([]domain.Branch, error) {
	return nil, pending("Branches")
}
func (b *Backend) Branch(ctx context.Context, repo, name string) (domain.Branch, error) {
	return domain.Branch{}, pending("Branch")
}
func (b *Backend) Tags(ctx context.Context, repo string) ([]domain.Tag, error) {
	return nil, pending("Tags")
}
func (b *Backend) Tag(ctx context.Context, repo, name string) (domain.Tag, error) {
	return domain.Tag{}, pending("Tag")
}
func (b *Backend) Commit(ctx context.Context, repo, rev string) (domain.Commit, error) {
	return domain.Commit{}, pending("Commit")
}
func (b *Backend) Log(ctx context.Context, repo string, q domain.LogQuery) ([]domain.Commit, error) {
	return nil, pending("Log")
}
func (b *Backend) CountCommits(ctx context.Context, repo string, q domain.LogQuery) (int, error) {
	return 0, pending("CountCommits")
}
func (b *Backend) CommitStats(ctx context.Context, repo, sha string) (domain.CommitStats, error) {
	return domain.CommitStats{}, pending("CommitStats")
}
func (b *Backend) Tree(ctx context.Context, repo, rev, path string, recursive bool) ([]domain.TreeEntry, error) {
	return nil, pending("Tree")
}
func (b *Backend) File(ctx context.Context, repo, rev, path string) (domain.File, error) {
	return domain.File{}, pending("File")
}
func (b *Backend) Blob(ctx context.Context, repo, sha string) (domain.Blob, error) {
	return domain.Blob{}, pending("Blob")
}
func (b *Backend) Diff(ctx context.Context, repo, from, to string) ([]domain.FileDiff, error) {
	return nil, pending("Diff")
}
func (b *Backend) MergeBase(ctx context.Context, repo, a, c string) (string, error) {
	return "", pending("MergeBase")
}
func (b *Backend) IsAncestor(ctx context.Context, repo, ancestor, descendant string) (bool, error) {
	return false, pending("IsAncestor")
}
func (b *Backend) Archive(ctx context.Context, repo, rev, format, prefix string, w io.Writer) error {
	return pending("Archive")
}
func (b *Backend) UpdateRef(ctx context.Context, repo, ref, newID, oldID string) error {
	return pending("UpdateRef")
}
func (b *Backend) CommitFiles(ctx context.Context, repo string, req domain.CommitFiles) (domain.Commit, error) {
	return domain.Commit{}, pending("CommitFiles")
}
func (b *Backend) CreateTag(ctx context.Context, repo, name, target, message string, tagger domain.Signature) (domain.Tag, error) {
	return domain.Tag{}, pending("CreateTag")
}
func (b *Backend) Merge(ctx context.Context, repo string, req domain.MergeRequest) (domain.MergeResult, error) {
	return domain.MergeResult{}, pending("Merge")
}
func (b *Backend) CherryPick(ctx context.Context, repo, sha, onto string, committer domain.Signature) (domain.MergeResult, error) {
	return domain.MergeResult{}, pending("CherryPick")
}
func (b *Backend) AdvertiseRefs(ctx context.Context, repo, service, protocol string, w io.Writer) error {
	return pending("AdvertiseRefs")
}
func (b *Backend) ServeRPC(ctx context.Context, repo, service, protocol string, in io.Reader, w io.Writer) error {
	return pending("ServeRPC")
}
