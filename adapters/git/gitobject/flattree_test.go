package gitobject

import (
	"errors"
	"testing"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

func TestFlatTreeApply(t *testing.T) {
	t.Parallel()
	blobs := 0
	blob := func(content []byte) (string, error) {
		blobs++
		return string(content), nil
	}
	tree := NewFlatTree()
	tree.Add("a/b/c.txt", FileEntry{Mode: "100644", ID: "c"})
	tree.Add("sub", FileEntry{Mode: "160000", ID: "s"})
	if !tree.IsDir("a") || !tree.IsDir("a/b") || tree.IsDir("a/b/c.txt") {
		t.Fatalf("directories of %v wrong", tree.Files)
	}
	refused := []struct {
		action domain.FileAction
		msg    string
	}{
		{domain.FileAction{Action: domain.FileCreate, Path: "a/b/c.txt"}, msgFileExists},
		{domain.FileAction{Action: domain.FileCreate, Path: "a/b"}, msgDirExists},
		{domain.FileAction{Action: domain.FileCreate, Path: "a/b/c.txt/d"}, msgFileExists},
		{domain.FileAction{Action: domain.FileUpdate, Path: "nope"}, msgFileMissing},
		{domain.FileAction{Action: domain.FileDelete, Path: "a"}, msgFileMissing},
		{domain.FileAction{Action: domain.FileMove, Path: "x", PreviousPath: "nope"}, msgFileMissing},
	}
	for _, tc := range refused {
		err := tree.Apply(tc.action, blob)
		var ce *core.Error
		if !errors.As(err, &ce) || !errors.Is(err, core.ErrInvalid) || ce.Msg != tc.msg {
			t.Errorf("%+v: %v, want %q", tc.action, err, tc.msg)
		}
	}
	if blobs != 0 {
		t.Errorf("refused actions wrote %d blobs", blobs)
	}
	for _, a := range []domain.FileAction{
		{Action: domain.FileUpdate, Path: "sub", Content: []byte("now a file")},
		{Action: domain.FileMove, Path: "moved.txt", PreviousPath: "a/b/c.txt"},
		{Action: domain.FileCreate, Path: "a", Content: []byte("a")},
	} {
		if err := tree.Apply(a, blob); err != nil {
			t.Fatalf("%+v: %v", a, err)
		}
	}
	want := map[string]FileEntry{
		"sub":       {Mode: "100644", ID: "now a file"}, // a submodule updated becomes a file
		"moved.txt": {Mode: "100644", ID: "c"},          // moved without content: same blob
		"a":         {Mode: "100644", ID: "a"},          // its directory left with its last file
	}
	if len(tree.Files) != len(want) {
		t.Fatalf("files = %v, want %v", tree.Files, want)
	}
	for p, e := range want {
		if tree.Files[p] != e {
			t.Errorf("%s = %+v, want %+v", p, tree.Files[p], e)
		}
	}
	if tree.IsDir("a") || tree.IsDir("a/b") {
		t.Error("emptied directories still count as directories")
	}
}
