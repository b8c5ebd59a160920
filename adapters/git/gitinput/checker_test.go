package gitinput

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

func TestCommitFilesChecks(t *testing.T) {
	t.Parallel()
	const check = Checker("somegit")
	sig := domain.Signature{Name: "A", Email: "a@example.com", When: time.Unix(0, 0)}
	valid := func() domain.CommitFiles {
		return domain.CommitFiles{Branch: "main", Message: "m", Author: sig, Committer: sig, Actions: []domain.FileAction{
			{Action: domain.FileCreate, Path: "dir/new.txt/"},
			{Action: domain.FileMove, Path: "b", PreviousPath: "a/"},
		}}
	}
	req := valid()
	actions, err := check.CommitFiles(req)
	if err != nil {
		t.Fatal(err)
	}
	if actions[0].Path != "dir/new.txt" || actions[1].PreviousPath != "a" {
		t.Errorf("paths not cleaned: %+v", actions)
	}
	if req.Actions[0].Path != "dir/new.txt/" {
		t.Errorf("the request changed: %+v", req.Actions)
	}

	for name, tc := range map[string]struct {
		change func(r *domain.CommitFiles)
		msg    string // GitLab's message, or "" for a plain core.ErrInvalid naming the backend
	}{
		"branch":        {func(r *domain.CommitFiles) { r.Branch = "a..b" }, ""},
		"expected head": {func(r *domain.CommitFiles) { r.ExpectedHead = "abc" }, ""},
		"author":        {func(r *domain.CommitFiles) { r.Author.Email = "a<b" }, ""},
		"message":       {func(r *domain.CommitFiles) { r.Message = "a\x00b" }, ""},
		"action":        {func(r *domain.CommitFiles) { r.Actions[0].Action = "chmod" }, ""},
		"no actions":    {func(r *domain.CommitFiles) { r.Actions = nil }, "No actions given"},
		"root path":     {func(r *domain.CommitFiles) { r.Actions[0].Path = "/" }, "Invalid path"},
		".git path":     {func(r *domain.CommitFiles) { r.Actions[1].PreviousPath = "x/.GIT" }, "Invalid path"},
	} {
		r := valid()
		tc.change(&r)
		_, err := check.CommitFiles(r)
		if !errors.Is(err, core.ErrInvalid) {
			t.Errorf("%s: %v, want invalid", name, err)
			continue
		}
		var ce *core.Error
		switch {
		case tc.msg != "" && (!errors.As(err, &ce) || ce.Msg != tc.msg):
			t.Errorf("%s: %v, want %q", name, err, tc.msg)
		case tc.msg == "" && name != "branch" && !strings.HasPrefix(err.Error(), "somegit: "):
			t.Errorf("%s: %q does not name the backend", name, err)
		}
	}
}

func TestTransportAndArchiveChecks(t *testing.T) {
	t.Parallel()
	const check = Checker("somegit")
	if err := check.Transport("git-upload-pack", "version=2"); err != nil {
		t.Error(err)
	}
	for _, bad := range [][2]string{{"git-upload-archive", ""}, {"git-receive-pack", "a b"}, {"git-receive-pack", "v\n"}} {
		if err := check.Transport(bad[0], bad[1]); !errors.Is(err, core.ErrInvalid) {
			t.Errorf("Transport(%q, %q) = %v", bad[0], bad[1], err)
		}
	}
	if p, err := check.Archive("tar.gz", "x/y/"); p != "x/y/" || err != nil {
		t.Errorf("Archive prefix = %q, %v", p, err)
	}
	for _, bad := range [][2]string{{"rar", ""}, {"zip", "../x"}, {"zip", "-x"}} {
		if _, err := check.Archive(bad[0], bad[1]); !errors.Is(err, core.ErrInvalid) {
			t.Errorf("Archive(%q, %q) = %v", bad[0], bad[1], err)
		}
	}
}
