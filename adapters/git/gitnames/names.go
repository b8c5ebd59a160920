// Package gitnames holds the rules for the names git backends accept:
// repository names, branch, tag and full ref names, revisions and paths.
// Both backends (gitcli, gogit) use them, so they accept and refuse exactly
// the same input, always before git or the file system sees it. Refusals
// are core.ErrInvalid.
package gitnames

import (
	"fmt"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

const (
	maxRepoName = 1024
	maxPath     = 4096
)

// CheckRepo validates a repository name: one or more "/"-separated
// segments, only the last ending in ".git" (so no repository sits inside
// another one), none empty or starting with "." (which rules out "." and
// "..", and keeps backends' temporary names apart) or "-" (so a name never
// reads as an option); no backslashes or control bytes. Together these keep
// every repository under the backend's root.
func CheckRepo(repo string) error {
	invalid := func(why string) error {
		return fmt.Errorf("git: repository name %q %s: %w", repo, why, core.ErrInvalid)
	}
	switch {
	case repo == "":
		return invalid("is empty")
	case len(repo) > maxRepoName:
		return invalid("is too long")
	case strings.ContainsRune(repo, '\\'):
		return invalid("contains a backslash")
	case domain.HasControl(repo):
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

// CheckBranch validates a short branch name with git's rules
// (check-ref-format --branch) in Go, plus GitLab's: no leading "-", not
// "HEAD", and no "refs/" prefix, which would make the name read as a full
// ref ("refs-x" is fine).
func CheckBranch(name string) error {
	if !domain.ValidShortRefName(name) {
		return fmt.Errorf("git: invalid branch name %q: %w", name, core.ErrInvalid)
	}
	return nil
}

// CheckTag validates a short tag name like CheckBranch.
func CheckTag(name string) error {
	if !domain.ValidShortRefName(name) {
		return fmt.Errorf("git: invalid tag name %q: %w", name, core.ErrInvalid)
	}
	return nil
}

// CheckFullRef validates a full ref name ("refs/heads/x").
func CheckFullRef(ref string) error {
	if !strings.HasPrefix(ref, "refs/") || len(ref) > maxRepoName || !domain.ValidRefName(ref) ||
		strings.Count(ref, "/") < 2 || strings.Contains(ref, "/-") {
		return fmt.Errorf("git: invalid ref name %q: %w", ref, core.ErrInvalid)
	}
	return nil
}

// CheckRev validates a revision: a ref name (short or full), HEAD, or a
// hex object name. Revision syntax ("main~1", "a..b", "@{-1}", ":path")
// and anything that could read as an option are core.ErrInvalid.
func CheckRev(rev string) error {
	if rev == "" || len(rev) > maxRepoName || rev[0] == '-' || !domain.ValidRefName(rev) {
		return fmt.Errorf("git: invalid revision %q: %w", rev, core.ErrInvalid)
	}
	return nil
}

// IsHex reports whether s is an object name or an abbreviation of at
// least 4 digits.
func IsHex(s string) bool {
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

// IsOID reports whether s is a full lowercase object name.
func IsOID(s string) bool { return len(s) == 40 && IsHex(s) && strings.ToLower(s) == s }

// CleanPath validates a repository path ("" = root; one trailing "/" is
// tolerated) and returns it without the slash. Empty, "." and ".."
// segments, a leading "/", control bytes and NUL are core.ErrInvalid.
func CleanPath(p string) (string, error) {
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return "", nil
	}
	if len(p) > maxPath || domain.HasControl(p) {
		return "", fmt.Errorf("git: invalid path %q: %w", p, core.ErrInvalid)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", fmt.Errorf("git: invalid path %q: %w", p, core.ErrInvalid)
		}
	}
	return p, nil
}

// CheckWritePath refuses what git refuses in an index (verify_path, with
// its NTFS protection on, as by default): ".git" in any spelling git
// treats as such, and backslashes.
func CheckWritePath(p string) error {
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
