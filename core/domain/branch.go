package domain

import "time"

// ProtectedBranch is a branch rule of a project. Name may hold "*"
// wildcards ("*-stable"), as in GitLab.
type ProtectedBranch struct {
	ID                 int64
	ProjectID          int64
	Name               string
	DevelopersCanPush  bool
	DevelopersCanMerge bool
	CreatedAt          time.Time
}

// Protection is the rule that protects branch among rules, if any: an
// exact name wins over a wildcard; among wildcards the first in order.
func Protection(rules []ProtectedBranch, branch string) (ProtectedBranch, bool) {
	var found *ProtectedBranch
	for i := range rules {
		if rules[i].Name == branch {
			return rules[i], true
		}
		if found == nil && wildcardMatch(rules[i].Name, branch) {
			found = &rules[i]
		}
	}
	if found == nil {
		return ProtectedBranch{}, false
	}
	return *found, true
}

// wildcardMatch matches GitLab's protected branch wildcards, where "*"
// stands for any run of characters, slashes included (path.Match stops
// "*" at "/").
func wildcardMatch(pattern, name string) bool {
	for i := 0; i < len(pattern); i++ {
		if pattern[i] != '*' {
			continue
		}
		prefix, rest := pattern[:i], pattern[i+1:]
		if len(name) < len(prefix) || name[:len(prefix)] != prefix {
			return false
		}
		for j := len(prefix); j <= len(name); j++ {
			if wildcardMatch(rest, name[j:]) {
				return true
			}
		}
		return false
	}
	return pattern == name
}
