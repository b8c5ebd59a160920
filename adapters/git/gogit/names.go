package gogit

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hearth-forge/hearth/core"
)

// The name rules are gitcli's (adapters/git/gitcli/names.go): both backends
// accept and refuse exactly the same repository, branch, tag, ref,
// revision and path names.

const (
	maxRepoName   = 1024
	maxBranchName = 255
	maxPath       = 4096
)

// path validates repo and returns its absolute location under the root.
// A name is "/"-separated segments, none empty or starting with "." or
// "-", only the last ending in ".git"; no backslashes or control bytes.
func (b *Backend) path(repo string) (string, error) {
	if err := checkRepo(repo); err != nil {
		return "", err
	}
	return filepath.Join(b.root, filepath.FromSlash(repo)), nil
}

func checkRepo(repo string) error {
	invalid := func(why string) error {
		return fmt.Errorf("gogit: repository name %q %s: %w", repo, why, core.ErrInvalid)
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

// checkBranch validates a short branch name (git's check-ref-format
// --branch plus GitLab's rules: no leading "-", not "HEAD", no "refs/").
func checkBranch(name string) error {
	if name == "" || name == "HEAD" || len(name) > maxBranchName || name[0] == '-' ||
		strings.HasPrefix(name, "refs/") || !validRefName(name) {
		return fmt.Errorf("gogit: invalid branch name %q: %w", name, core.ErrInvalid)
	}
	return nil
}

// checkTagName validates a short tag name like checkBranch.
func checkTagName(name string) error {
	if name == "" || name == "HEAD" || len(name) > maxBranchName || name[0] == '-' ||
		strings.HasPrefix(name, "refs/") || !validRefName(name) {
		return fmt.Errorf("gogit: invalid tag name %q: %w", name, core.ErrInvalid)
	}
	return nil
}

// checkFullRef validates a full ref name ("refs/heads/x").
func checkFullRef(ref string) error {
	if !strings.HasPrefix(ref, "refs/") || len(ref) > maxRepoName || !validRefName(ref) ||
		strings.Count(ref, "/") < 2 || strings.Contains(ref, "/-") {
		return fmt.Errorf("gogit: invalid ref name %q: %w", ref, core.ErrInvalid)
	}
	return nil
}

// checkRev validates a revision: a ref name (short or full), HEAD, or a
// hex object name; revision syntax is refused.
func checkRev(rev string) error {
	if rev == "" || len(rev) > maxRepoName || rev[0] == '-' || !validRefName(rev) {
		return fmt.Errorf("gogit: invalid revision %q: %w", rev, core.ErrInvalid)
	}
	return nil
}

// validRefName is git's check_refname_format without flags.
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

// isHex reports whether s is an object name or an abbreviation of at
// least 4 digits.
func isHex(s string) bool {
	if len(s) < 4 || len(s) > 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') && (c < 'A' || c > 'F') {
			return false
		}
	}
	return true
}

// isOID reports whether s is a full lowercase object name.
func isOID(s string) bool { return len(s) == 40 && isHex(s) && strings.ToLower(s) == s }

// cleanPath validates a repository path ("" = root; one trailing "/" is
// tolerated) and returns it without the slash.
func cleanPath(p string) (string, error) {
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return "", nil
	}
	if len(p) > maxPath || hasControl(p) {
		return "", fmt.Errorf("gogit: invalid path %q: %w", p, core.ErrInvalid)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", fmt.Errorf("gogit: invalid path %q: %w", p, core.ErrInvalid)
		}
	}
	return p, nil
}

// checkWritePath refuses what git refuses in an index (verify_path with
// NTFS protection): ".git" in any spelling, and backslashes.
func checkWritePath(p string) error {
	if strings.ContainsRune(p, '\\') {
		return core.BadRequest("Invalid path")
	}
	for _, seg := range strings.Split(p, "/") {
		s := strings.ToLower(strings.TrimRight(seg, ". "))
		if s == ".git" || s == "git~1" {
			return core.BadRequest("Invalid path")
		}
	}
	return nil
}
