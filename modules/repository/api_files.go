package repository

import (
	"encoding/base64"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
)

// diffJSON is GitLab's Diff entry, shared with merge requests.
type diffJSON = apijson.Diff

func newDiffsJSON(diffs []domain.FileDiff) []diffJSON { return apijson.DiffsOf(diffs) }

// treeEntryJSON is GitLab's RepoTreeObject.
type treeEntryJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
	Path string `json:"path"`
	Mode string `json:"mode"`
}

func newTreeEntryJSON(e domain.TreeEntry) treeEntryJSON {
	return treeEntryJSON{ID: e.ID, Name: e.Name, Type: e.Type, Path: e.Path, Mode: e.Mode}
}

// fileJSON is the file read of GitLab 9.x's files API.
type fileJSON struct {
	FileName     string `json:"file_name"`
	FilePath     string `json:"file_path"`
	Size         int64  `json:"size"`
	Encoding     string `json:"encoding"`
	Content      string `json:"content"`
	Ref          string `json:"ref"`
	BlobID       string `json:"blob_id"`
	CommitID     string `json:"commit_id"`
	LastCommitID string `json:"last_commit_id"`
}

func newFileJSON(f domain.File, ref string) fileJSON {
	return fileJSON{
		FileName: f.Name, FilePath: f.Path, Size: f.Size, Encoding: "base64",
		Content: base64.StdEncoding.EncodeToString(f.Content), Ref: ref,
		BlobID: f.BlobID, CommitID: f.CommitID, LastCommitID: f.LastCommitID,
	}
}

// fileCommitJSON answers file creation and update.
type fileCommitJSON struct {
	FilePath string `json:"file_path"`
	Branch   string `json:"branch"`
}

// blobJSON is GitLab 9.x's blob read.
type blobJSON struct {
	Size     int64  `json:"size"`
	Encoding string `json:"encoding"`
	Content  string `json:"content"`
	SHA      string `json:"sha"`
}

func newBlobJSON(b domain.Blob) blobJSON {
	return blobJSON{Size: b.Size, Encoding: "base64", Content: base64.StdEncoding.EncodeToString(b.Content), SHA: b.ID}
}

// compareJSON is GitLab's Compare entity; commit is the newest of
// commits, null when there are none.
type compareJSON struct {
	Commit         *commitJSON  `json:"commit"`
	Commits        []commitJSON `json:"commits"`
	Diffs          []diffJSON   `json:"diffs"`
	CompareTimeout bool         `json:"compare_timeout"`
	CompareSameRef bool         `json:"compare_same_ref"`
}

func newCompareJSON(c Comparison) compareJSON {
	out := compareJSON{Commits: mapAll(c.Commits, newCommitJSON), Diffs: newDiffsJSON(c.Diffs), CompareSameRef: c.SameRef}
	if n := len(out.Commits); n > 0 {
		last := out.Commits[n-1]
		out.Commit = &last
	}
	return out
}
