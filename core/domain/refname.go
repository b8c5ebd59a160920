package domain

import (
	"fmt"
	"strings"
)

// MaxShortRefName bounds branch and tag names, as both git backends and
// the API do.
const MaxShortRefName = 255

// ValidRefName is git's check_refname_format without any flag: components
// separated by "/", none empty, none starting with "." or ending with
// ".lock"; no "..", "@{", control bytes, space, "~^:?*[\\"; not "@"; no
// trailing "/" or ".".
func ValidRefName(name string) bool {
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

// ValidShortRefName is the rule for branch and tag names (GitLab's
// GitRefValidator, git's check-ref-format --branch): ValidRefName, at most
// MaxShortRefName bytes, not "HEAD", no leading "-" (a name never reads as
// an option) and no "refs/" prefix, which would make it read as a full ref
// name ("refs-x" is fine).
func ValidShortRefName(name string) bool {
	return name != "" && name != "HEAD" && len(name) <= MaxShortRefName && name[0] != '-' &&
		!strings.HasPrefix(name, "refs/") && ValidRefName(name)
}

// HasControl reports whether s holds an ASCII control byte (NUL included).
func HasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// RepoPath is the name every git backend knows a project's repository by.
// It hangs on the project's ID, not its path, so renames and transfers
// never move a repository.
func RepoPath(projectID int64) string { return fmt.Sprintf("projects/%d.git", projectID) }
