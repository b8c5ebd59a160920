package apijson

import "github.com/hearth-forge/hearth/core/domain"

// Diff is GitLab's diff entry (commit diffs, compare, merge request changes).
type Diff struct {
	Diff        string  `json:"diff"`
	NewPath     string  `json:"new_path"`
	OldPath     string  `json:"old_path"`
	AMode       *string `json:"a_mode"`
	BMode       string  `json:"b_mode"`
	NewFile     bool    `json:"new_file"`
	RenamedFile bool    `json:"renamed_file"`
	DeletedFile bool    `json:"deleted_file"`
}

// DiffOf renders one file's diff; an absent old mode (new file) is null.
func DiffOf(d domain.FileDiff) Diff {
	var aMode *string
	if d.AMode != "" {
		m := d.AMode
		aMode = &m
	}
	return Diff{
		Diff: d.Diff, NewPath: d.NewPath, OldPath: d.OldPath, AMode: aMode, BMode: d.BMode,
		NewFile: d.NewFile, RenamedFile: d.RenamedFile, DeletedFile: d.DeletedFile,
	}
}

// DiffsOf renders every diff (an empty array, never null).
func DiffsOf(diffs []domain.FileDiff) []Diff {
	out := make([]Diff, 0, len(diffs))
	for _, d := range diffs {
		out = append(out, DiffOf(d))
	}
	return out
}
