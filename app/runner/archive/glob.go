package archive

import (
	"fmt"
	"path"
	"strings"
)

// GitLab artifact and cache paths are doublestar globs relative to the build
// directory: "*", "?" and "[...]" ("[!...]" or "[^...]" negates) match within
// one path component, "**" as a whole component matches zero or more
// directories, "{a,b}" alternates and "\" escapes the next character.

// normalizePattern turns a user path into a slash-separated pattern relative
// to root, or "" with ok=false when it points outside root (gitlab-runner
// refuses those with "not supported: outside build directory").
func normalizePattern(root, p string) (string, bool) {
	p = strings.TrimSpace(p)
	if p == "" {
		return "", false
	}
	if strings.HasPrefix(p, "/") {
		r := strings.TrimSuffix(root, "/") + "/"
		p = path.Clean(p) + "/"
		if !strings.HasPrefix(p, r) {
			return "", false
		}
		p = strings.TrimPrefix(p, r)
	}
	p = path.Clean(p)
	if p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
		return "", false
	}
	return p, true
}

// maxAlternatives bounds brace expansion: "{a,b}" repeated 30 times would
// otherwise be a billion patterns.
const maxAlternatives = 1024

// expandBraces expands "{a,b}" alternatives (nested ones too) into separate
// patterns. An unbalanced brace is kept literally.
func expandBraces(p string) ([]string, error) {
	out, err := expand(p, maxAlternatives)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func expand(p string, budget int) ([]string, error) {
	open := -1
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' {
			i++
			continue
		}
		if p[i] == '{' {
			open = i
			break
		}
	}
	if open < 0 {
		return []string{p}, nil
	}
	depth := 0
	var alts []string
	start := open + 1
	for i := open; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			depth++
		case ',':
			if depth == 1 {
				alts = append(alts, p[start:i])
				start = i + 1
			}
		case '}':
			depth--
			if depth == 0 {
				alts = append(alts, p[start:i])
				rests, err := expand(p[i+1:], budget)
				if err != nil {
					return nil, err
				}
				var out []string
				for _, rest := range rests {
					for _, a := range alts {
						more, err := expand(p[:open]+a+rest, budget-len(out))
						if err != nil {
							return nil, err
						}
						out = append(out, more...)
						if len(out) > budget {
							return nil, fmt.Errorf("more than %d alternatives in braces", maxAlternatives)
						}
					}
				}
				return out, nil
			}
		}
	}
	return []string{p}, nil
}

// splitPattern splits a normalized pattern into components, collapsing
// repeated "**" components.
func splitPattern(p string) []string {
	if p == "." || p == "" {
		return nil
	}
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." {
			continue
		}
		if c == "**" && len(out) > 0 && out[len(out)-1] == "**" {
			continue
		}
		out = append(out, c)
	}
	return out
}

// hasMeta reports whether a pattern component needs matching rather than a
// direct lookup.
func hasMeta(c string) bool {
	return strings.ContainsAny(c, "*?[")
}

// unescape removes backslash escapes from a literal component.
func unescape(c string) string {
	if !strings.Contains(c, `\`) {
		return c
	}
	var b strings.Builder
	for i := 0; i < len(c); i++ {
		if c[i] == '\\' && i+1 < len(c) {
			i++
		}
		b.WriteByte(c[i])
	}
	return b.String()
}

// matchComponent matches one path component; a malformed pattern matches
// nothing, as gitlab-runner only warns about it.
func matchComponent(pat, name string) bool {
	// path.Match negates with "[^"; doublestar also accepts "[!".
	pat = strings.ReplaceAll(pat, "[!", "[^")
	ok, err := path.Match(pat, name)
	return err == nil && ok
}

// matchPath reports whether the slash-separated relative path name matches
// the pattern components.
func matchPath(pat []string, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			for i := 0; i <= len(name); i++ {
				if matchPath(rest, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 || !matchComponent(pat[0], name[0]) {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// compile turns user patterns into component lists relative to root,
// dropping those that point outside it (before and after brace expansion:
// "{..,x}/y" must not reach the parent).
func compile(root string, patterns []string) ([][]string, error) {
	var out [][]string
	for _, p := range patterns {
		n, ok := normalizePattern(root, p)
		if !ok {
			continue
		}
		alts, err := expandBraces(n)
		if err != nil {
			return nil, fmt.Errorf("archive: path %q: %w", p, err)
		}
		for _, a := range alts {
			if a, ok = normalizePattern(root, a); ok {
				out = append(out, splitPattern(a))
			}
		}
	}
	return out, nil
}

// matcher is a set of compiled patterns (used for excludes).
type matcher [][]string

func newMatcher(root string, patterns []string) (matcher, error) {
	m, err := compile(root, patterns)
	return matcher(m), err
}

func (m matcher) match(rel string) bool {
	name := strings.Split(rel, "/")
	for _, p := range m {
		if matchPath(p, name) {
			return true
		}
	}
	return false
}
