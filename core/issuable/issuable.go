// Package issuable holds what issues and merge requests share, as
// GitLab's Issuable concern does, so that both modules state each rule
// once:
//
//   - issuable.go: titles, labels and @mentions;
//   - item.go: an issue or merge request as the shared rules see it
//     (Item), and Resolve / ResolveSignedIn, the start of every use case;
//   - list.go: the list filters both lists take, the milestone title
//     filter, pages, and PageInput (a handler's page with what was wrong
//     with the request, reported once access is known);
//   - activity.go, notes.go: what a change leaves behind (system notes,
//     todos for assignees and mentions, subscriptions, labels named into
//     existence), built from the ports in Deps.
//
// It speaks no HTTP: use cases call it with ctx, the caller and typed input.
package issuable

import (
	"regexp"
	"slices"
	"strings"

	"github.com/hearth-forge/hearth/core"
)

// MaxTitle is GitLab's limit on titles.
const MaxTitle = 255

// ValidTitle is the model validation of a title: present, at most
// MaxTitle characters.
func ValidTitle(title string) error {
	title = strings.TrimSpace(title)
	if title == "" {
		return core.FieldInvalid("title", "can't be blank")
	}
	if len([]rune(title)) > MaxTitle {
		return core.FieldInvalid("title", "is too long (maximum is 255 characters)")
	}
	return nil
}

// NormalizeLabels trims, drops empties and duplicates, and sorts, as
// GitLab lists labels by title.
func NormalizeLabels(in []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, l := range in {
		l = strings.TrimSpace(l)
		if l == "" || seen[l] {
			continue
		}
		seen[l] = true
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// mentionPattern finds @username mentions.
var mentionPattern = regexp.MustCompile(`(?:^|[^\w@.])@([A-Za-z0-9_][A-Za-z0-9_.\-]*[A-Za-z0-9_]|[A-Za-z0-9_])`)

// MaxMentions bounds the users one text can mention (each costs lookups).
const MaxMentions = 50

// NewMentions returns the usernames (lower case, each once, in order, at
// most MaxMentions) mentioned in text but not in before.
func NewMentions(text, before string) []string {
	old := map[string]bool{}
	for _, m := range mentionPattern.FindAllStringSubmatch(before, -1) {
		old[strings.ToLower(m[1])] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, m := range mentionPattern.FindAllStringSubmatch(text, -1) {
		name := strings.ToLower(m[1])
		if seen[name] || old[name] {
			continue
		}
		if len(out) >= MaxMentions {
			break
		}
		seen[name] = true
		out = append(out, name)
	}
	return out
}
