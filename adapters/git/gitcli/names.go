package gitcli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hearth-forge/hearth/core"
)

const (
	maxRepoName   = 1024
	maxBranchName = 255
)

// path validates repo and returns its absolute location under the root.
//
// A name is one or more "/"-separated segments; only the last ends in
// ".git", so no repository sits inside another one (deleting the outer one
// would take the inner with it). Segments may not be empty or start with
// "." (which also rules out "." and "..", and keeps the backend's temporary
// and trash names apart) or "-" (so a name can never read as an option). No
// backslashes or control bytes. Together these keep every path under root.
func (b *Backend) path(repo string) (string, error) {
	if err := checkRepo(repo); err != nil {
		return "", err
	}
	return filepath.Join(b.root, filepath.FromSlash(repo)), nil
}

func checkRepo(repo string) error {
	invalid := func(why string) error {
		return fmt.Errorf("gitcli: repository name %q %s: %w", repo, why, core.ErrInvalid)
	}
	switch {
	case repo == "":
		return invalid("is empty")
	case len(repo) > maxRepoName:
		return invalid("is too long")
	case strings.ContainsRune(repo, '\\'):
		return invalid("contains a backslash")
	case hasControl(repo):
		return invalid("contains a control character")
	case !strings.HasSuffix(repo, ".git"):
		return invalid(`does not end in ".git"`)
	}
	segs := strings.Split(repo, "/")
	for i, seg := range segs {
		switch {
		case seg == "":
			return invalid("has an empty segment or is absolute")
		case seg[0] == '.':
			return invalid(`has a segment starting with "."`)
		case seg[0] == '-':
			return invalid(`has a segment starting with "-"`)
		case i < len(segs)-1 && strings.HasSuffix(seg, ".git"):
			return invalid("is nested in another repository")
		}
	}
	if len(segs[len(segs)-1]) == len(".git") {
		return invalid("has no name before .git")
	}
	return nil
}

// checkBranch validates a branch name with git's own rules. The cheap
// checks come first: "-x" must never reach git's argument list, "@{-1}"
// would be expanded rather than rejected, and outside a repository git lets
// "@" (HEAD's shorthand in revisions) through.
func (b *Backend) checkBranch(ctx context.Context, name string) error {
	invalid := func() error {
		return fmt.Errorf("gitcli: invalid branch name %q: %w", name, core.ErrInvalid)
	}
	if name == "" || name == "@" || len(name) > maxBranchName || name[0] == '-' ||
		strings.Contains(name, "@{") || hasControl(name) {
		return invalid()
	}
	// check-ref-format takes exactly "--branch <name>" (no option parsing
	// after it), so the name cannot be mistaken for an option.
	out, err := b.run(ctx, b.home, "check-ref-format", "--branch", name)
	if err != nil {
		if exitCode(err) > 0 {
			return invalid()
		}
		return fmt.Errorf("gitcli: check branch name: %w", err)
	}
	if strings.TrimSuffix(string(out), "\n") != name {
		return invalid()
	}
	return nil
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}
