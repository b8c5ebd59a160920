package domain

import "time"

// ProtectedBranch is a branch rule of a project. Name may hold "*"
// wildcards ("*-stable"), as in GitLab. PushAccessLevel and
// MergeAccessLevel say who may push to and merge into the branches it
// matches (GitLab's push_access_levels and merge_access_levels):
// Master (masters), Developer (developers and masters) or NoAccess (no
// one, masters and administrators included).
type ProtectedBranch struct {
	ID               int64
	ProjectID        int64
	Name             string
	PushAccessLevel  AccessLevel
	MergeAccessLevel AccessLevel
	CreatedAt        time.Time
}

// ValidProtectionLevel reports whether l is a level a protected branch
// rule may hold (GitLab's ProtectedRefAccess::ALLOWED_ACCESS_LEVELS).
func ValidProtectionLevel(l AccessLevel) bool {
	return l == NoAccess || l == Developer || l == Master
}

// LevelFor is the level a developers_can_push or developers_can_merge
// flag of the branches API stands for (GitLab's legacy protect service):
// developers and masters, or masters only.
func LevelFor(developersCan bool) AccessLevel {
	if developersCan {
		return Developer
	}
	return Master
}

// DevelopersCanPush is the branches API's developers_can_push.
func (b ProtectedBranch) DevelopersCanPush() bool { return b.PushAccessLevel == Developer }

// DevelopersCanMerge is the branches API's developers_can_merge.
func (b ProtectedBranch) DevelopersCanMerge() bool { return b.MergeAccessLevel == Developer }

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
