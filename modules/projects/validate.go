package projects

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// Limits and rules of GitLab 9.x's Project model.
const (
	maxNameLength         = 255
	maxPathLength         = 255
	maxCIConfigPathLength = 255
	maxTagLength          = 255
)

// GitLab's project path rule (Gitlab::PathRegex.project_path_format_regex):
// letters, digits, '_', '-' and '.'; not starting with '-', not ending in
// '.git' or '.atom'.
var pathRE = regexp.MustCompile(`^[a-zA-Z0-9_.][a-zA-Z0-9_.-]*$`)

const pathFormatMsg = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"

// GitLab's project name rule (Gitlab::Regex.project_name_regex):
// /\A[\p{Alnum}\u{00A9}-\u{1f9c0}_][\p{Alnum}\p{Pd}\u{00A9}-\u{1f9c0}_\. ]*\z/.
var nameRE = regexp.MustCompile(`^[\p{L}\p{M}\p{Nd}\x{00A9}-\x{1F9C0}_][\p{L}\p{M}\p{Nd}\p{Pd}\x{00A9}-\x{1F9C0}_. ]*$`)

const nameFormatMsg = "can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'."

// reservedPaths are GitLab 9.x's project wildcard routes
// (Gitlab::PathRegex::PROJECT_WILDCARD_ROUTES), which no project path may take.
var reservedPaths = map[string]bool{
	"-": true, "badges": true, "blame": true, "blob": true, "builds": true, "commits": true,
	"create": true, "create_dir": true, "edit": true, "environments": true, "files": true,
	"find_file": true, "gitlab-lfs": true, "info": true, "new": true, "preview": true,
	"raw": true, "refs": true, "tree": true, "update": true, "wikis": true,
}

// pathErrors lists what is wrong with a project path.
func pathErrors(path string) []string {
	if strings.TrimSpace(path) == "" {
		return []string{"can't be blank"}
	}
	var msgs []string
	if len(path) > maxPathLength {
		msgs = append(msgs, "is too long (maximum is "+strconv.Itoa(maxPathLength)+" characters)")
	}
	lower := strings.ToLower(path)
	if !pathRE.MatchString(path) || strings.HasSuffix(lower, ".git") || strings.HasSuffix(lower, ".atom") {
		msgs = append(msgs, pathFormatMsg)
	}
	if reservedPaths[lower] {
		msgs = append(msgs, path+" is a reserved name")
	}
	return msgs
}

// nameErrors lists what is wrong with a project name.
func nameErrors(name string) []string {
	if strings.TrimSpace(name) == "" {
		return []string{"can't be blank"}
	}
	var msgs []string
	if len([]rune(name)) > maxNameLength {
		msgs = append(msgs, "is too long (maximum is "+strconv.Itoa(maxNameLength)+" characters)")
	}
	if !nameRE.MatchString(name) {
		msgs = append(msgs, nameFormatMsg)
	}
	return msgs
}

// importURLErrors applies GitLab's AddressableUrlValidator (http, https,
// ssh and git URLs).
func importURLErrors(raw string) []string {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return []string{"must be a valid URL"}
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "ssh", "git":
		return nil
	}
	return []string{"must be a valid URL"}
}

// ciConfigPathErrors applies GitLab 9.x's ci_config_path validation; the
// caller strips leading slashes first, as GitLab does.
func ciConfigPathErrors(p string) []string {
	var msgs []string
	if strings.Contains(p, "..") {
		msgs = append(msgs, "cannot include directory traversal.")
	}
	if len(p) > maxCIConfigPathLength {
		msgs = append(msgs, "is too long (maximum is "+strconv.Itoa(maxCIConfigPathLength)+" characters)")
	}
	return msgs
}

// validBranch reports whether name is a branch name git accepts
// (git check-ref-format --branch), so it can safely become HEAD.
func validBranch(name string) bool {
	if name == "" || len(name) > 255 || name == "@" {
		return false
	}
	if strings.HasPrefix(name, "-") || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") ||
		strings.HasSuffix(name, ".") || strings.HasSuffix(name, ".lock") ||
		strings.Contains(name, "..") || strings.Contains(name, "//") || strings.Contains(name, "@{") {
		return false
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || unicode.IsSpace(r) || strings.ContainsRune("~^:?*[\\", r) {
			return false
		}
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") {
			return false
		}
	}
	return true
}

// cleanTags trims tags and drops blanks and repeats, as acts_as_taggable does.
func cleanTags(tags []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}

// Parameterize turns a project name into a path as GitLab 9.x does
// (ActiveSupport's String#parameterize): transliterate to ASCII, replace
// every run of characters other than letters, digits, '-' and '_' with one
// '-', squeeze repeated dashes, trim them from both ends, lowercase.
func Parameterize(name string) string {
	var b strings.Builder
	pendingSep := false
	for _, r := range transliterate(name) {
		ok := (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') || r == '_' || r == '-'
		if !ok {
			pendingSep = true
			continue
		}
		if pendingSep {
			b.WriteByte('-')
			pendingSep = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	// Squeeze "--" runs (from the input or from replacements) and trim.
	out := b.String()
	for strings.Contains(out, "--") {
		out = strings.ReplaceAll(out, "--", "-")
	}
	return strings.Trim(out, "-")
}

// transliterate approximates I18n.transliterate for Latin letters; other
// characters pass through (and become separators).
func transliterate(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 {
			b.WriteRune(r)
			continue
		}
		if t, ok := latin[r]; ok {
			b.WriteString(t)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

var latin = func() map[rune]string {
	m := map[rune]string{}
	add := func(ascii string, runes string) {
		for _, r := range runes {
			m[r] = ascii
		}
	}
	add("A", "ÀÁÂÃÄÅĀĂĄ")
	add("a", "àáâãäåāăą")
	add("AE", "Æ")
	add("ae", "æ")
	add("C", "ÇĆĈĊČ")
	add("c", "çćĉċč")
	add("D", "ĎĐÐ")
	add("d", "ďđð")
	add("E", "ÈÉÊËĒĔĖĘĚ")
	add("e", "èéêëēĕėęě")
	add("G", "ĜĞĠĢ")
	add("g", "ĝğġģ")
	add("H", "ĤĦ")
	add("h", "ĥħ")
	add("I", "ÌÍÎÏĨĪĬĮİ")
	add("i", "ìíîïĩīĭįı")
	add("J", "Ĵ")
	add("j", "ĵ")
	add("K", "Ķ")
	add("k", "ķ")
	add("L", "ĹĻĽĿŁ")
	add("l", "ĺļľŀł")
	add("N", "ÑŃŅŇ")
	add("n", "ñńņň")
	add("O", "ÒÓÔÕÖØŌŎŐ")
	add("o", "òóôõöøōŏő")
	add("OE", "Œ")
	add("oe", "œ")
	add("R", "ŔŖŘ")
	add("r", "ŕŗř")
	add("S", "ŚŜŞŠ")
	add("s", "śŝşš")
	add("ss", "ß")
	add("T", "ŢŤŦ")
	add("t", "ţťŧ")
	add("TH", "Þ")
	add("th", "þ")
	add("U", "ÙÚÛÜŨŪŬŮŰŲ")
	add("u", "ùúûüũūŭůűų")
	add("W", "Ŵ")
	add("w", "ŵ")
	add("Y", "ÝŶŸ")
	add("y", "ýÿŷ")
	add("Z", "ŹŻŽ")
	add("z", "źżž")
	return m
}()

// validate checks the given settings of p (already applied) as GitLab's
// Project model does; ns is p's namespace, source its fork source if any.
func (s *Service) validate(in *Settings, p *domain.Project, ns *domain.Namespace, source *domain.Project) core.FieldErrors {
	fields := core.FieldErrors{}
	if in.Name != nil {
		fields.Add("name", nameErrors(p.Name)...)
	}
	if in.Path != nil {
		fields.Add("path", pathErrors(p.Path)...)
	}
	if in.ImportURL != nil {
		fields.Add("import_url", importURLErrors(p.ImportURL)...)
	}
	if in.CIConfigPath != nil {
		fields.Add("ci_config_path", ciConfigPathErrors(p.CIConfigPath)...)
	}
	if in.DefaultBranch != nil && !validBranch(p.DefaultBranch) {
		fields.Add("default_branch", "is invalid")
	}
	if in.TagList != nil {
		for _, t := range p.TagList {
			if len(t) > maxTagLength {
				fields.Add("tag_list", "is too long (maximum is 255 characters)")
				break
			}
		}
	}
	if in.Visibility != nil {
		fields.Add("visibility_level", visibilityErrors(p.Visibility, ns, source)...)
	}
	return fields
}

// visibilityErrors are GitLab 9.x's visibility_level_allowed_by_group and
// visibility_level_allowed_as_fork.
func visibilityErrors(v domain.Visibility, ns *domain.Namespace, source *domain.Project) []string {
	var msgs []string
	if ns != nil && ns.Kind == domain.NamespaceGroup && v.Rank() > ns.Visibility.Rank() {
		msgs = append(msgs, string(v)+" is not allowed in a "+string(ns.Visibility)+" group.")
	}
	if source != nil && v.Rank() > source.Visibility.Rank() {
		msgs = append(msgs, string(v)+" is not allowed since the fork source project has lower visibility.")
	}
	return msgs
}
