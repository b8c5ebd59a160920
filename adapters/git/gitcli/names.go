package gitcli

import (
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

// checkBranch validates a short branch name with git's rules
// (check-ref-format --branch) in Go, plus GitLab's: no leading "-", not
// "HEAD", and no "refs/" prefix, which would make the name read as a full
// ref ("refs-x" is fine).
func checkBranch(name string) error {
	if name == "" || name == "HEAD" || len(name) > maxBranchName || name[0] == '-' ||
		strings.HasPrefix(name, "refs/") || !validRefName(name) {
		return fmt.Errorf("gitcli: invalid branch name %q: %w", name, core.ErrInvalid)
	}
	return nil
}

// checkTagName validates a short tag name like checkBranch.
func checkTagName(name string) error {
	if name == "" || name == "HEAD" || len(name) > maxBranchName || name[0] == '-' ||
		strings.HasPrefix(name, "refs/") || !validRefName(name) {
		return fmt.Errorf("gitcli: invalid tag name %q: %w", name, core.ErrInvalid)
	}
	return nil
}

// checkFullRef validates a full ref name ("refs/heads/x").
func checkFullRef(ref string) error {
	if !strings.HasPrefix(ref, "refs/") || len(ref) > maxRepoName || !validRefName(ref) ||
		strings.Count(ref, "/") < 2 || strings.Contains(ref, "/-") {
		return fmt.Errorf("gitcli: invalid ref name %q: %w", ref, core.ErrInvalid)
	}
	return nil
}

// validRefName is git's check_refname_format without any flag: components
// separated by "/", none empty, none starting with "." or ending with
// ".lock"; no "..", "@{", control bytes, space, "~^:?*[\\"; not "@"; no
// trailing "/" or ".".
func validRefName(name string) bool {
	if name == "" || name == "@" || name[len(name)-1] == '.' ||
		strings.Contains(name, "..") || strings.Contains(name, "@{") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[\\", c) >= 0 {
			return false
		}
	}
	for _, comp := range strings.Split(name, "/") {
		if comp == "" || comp[0] == '.' || strings.HasSuffix(comp, ".lock") {
			return false
		}
	}
	return true
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}
