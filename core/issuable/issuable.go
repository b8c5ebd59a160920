// Package issuable holds the rules issues and merge requests share, as
// GitLab's Issuable concern does: titles, labels and @mentions.
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

// invalidValue is Grape's complaint about a value outside a parameter's set.
func invalidValue(name string) error {
	return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: name + " does not have a valid value"}
}

// Order reads the order_by (created_at by default, or updated_at) and sort
// (desc by default, or asc) parameters of issuable lists.
func Order(orderBy, sort string) (column string, ascending bool, err error) {
	switch orderBy {
	case "", "created_at":
		column = "created_at"
	case "updated_at":
		column = "updated_at"
	default:
		return "", false, invalidValue("order_by")
	}
	switch sort {
	case "", "desc":
	case "asc":
		ascending = true
	default:
		return "", false, invalidValue("sort")
	}
	return column, ascending, nil
}

// LabelFilter reads the labels filter: the labels an item must all carry,
// or none at all for GitLab's "No Label".
func LabelFilter(labels []string) (all []string, none bool) {
	all = NormalizeLabels(labels)
	if len(all) == 1 && strings.EqualFold(all[0], "No Label") {
		return nil, true
	}
	return all, false
}

// NoMilestone tells whether a milestone filter asks for items without one.
func NoMilestone(title string) bool {
	return strings.EqualFold(title, "None") || strings.EqualFold(title, "No Milestone")
}
