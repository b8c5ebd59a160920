package ci

import (
	"regexp"
	"strings"

	"github.com/hearth-forge/hearth/core/domain"
)

// policyRegexp is a ref pattern written /like this/, with RE2's flags.
var policyRegexp = regexp.MustCompile(`^/(.*)/([ismU]*)$`)

// matcher decides only/except for one pipeline (GitLab's
// GitlabCiYamlProcessor#matching?).
type matcher struct {
	ref    string
	tag    bool
	source string
	// fullPath is the project's full path, read only when a pattern
	// names one (ref@group/project).
	fullPath func() string
}

// runs reports whether a job with these policies is part of the
// pipeline: its only matches (or it has none) and its except does not.
func (m matcher) runs(only, except *domain.RefPolicy) bool {
	if only != nil && len(only.Refs) > 0 && !m.any(only.Refs) {
		return false
	}
	if except != nil && len(except.Refs) > 0 && m.any(except.Refs) {
		return false
	}
	return true
}

func (m matcher) any(patterns []string) bool {
	for _, p := range patterns {
		pattern, path, scoped := strings.Cut(p, "@")
		if scoped && m.fullPath() != path {
			continue
		}
		if m.matches(pattern) {
			return true
		}
	}
	return false
}

// matches is one pattern: tags, branches, a source keyword (pushes, api,
// web, triggers, external, schedules), a /regexp/ searched in the ref, or
// the ref's name.
func (m matcher) matches(pattern string) bool {
	switch {
	case pattern == "tags" && m.tag, pattern == "branches" && !m.tag:
		return true
	case pattern == sourceKeyword(m.source):
		return true
	}
	if g := policyRegexp.FindStringSubmatch(pattern); g != nil {
		expr := g[1]
		if g[2] != "" {
			expr = "(?" + g[2] + ")" + expr
		}
		re, err := regexp.Compile(expr)
		return err == nil && re.MatchString(m.ref)
	}
	return pattern == m.ref
}

// sourceKeyword is how only/except name a pipeline source: api, web and
// external as they are, the others in the plural (push: pushes, trigger:
// triggers), as Rails' pluralize does.
func sourceKeyword(source string) string {
	switch source {
	case "":
		return "\x00" // matches no pattern
	case domain.SourceAPI, domain.SourceWeb, domain.SourceExternal:
		return source
	case domain.SourcePush:
		return "pushes"
	}
	return source + "s"
}
