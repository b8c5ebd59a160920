// Package issuable holds the rules issues and merge requests share, as
// GitLab's Issuable concern does: titles, labels and @mentions.
package issuable

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
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

// Subscribed is GitLab's subscription rule for the user: an explicit
// choice (nil: none) wins; otherwise the author and the assignee are
// subscribed.
func Subscribed(explicit *bool, authorID int64, assigneeID *int64, userID int64) bool {
	if explicit != nil {
		return *explicit
	}
	return userID != 0 && (authorID == userID || (assigneeID != nil && *assigneeID == userID))
}

// Subscribe records the user's wish on target unless it is already in
// effect; false means nothing changed (GitLab's 304).
func Subscribe(ctx context.Context, subs ports.SubscriptionStore, target domain.Subject, authorID int64, assigneeID *int64, userID int64, want bool) (bool, error) {
	explicit, err := subs.Get(ctx, target, userID)
	if err != nil {
		return false, fmt.Errorf("subscription of user %d: %w", userID, err)
	}
	if Subscribed(explicit, authorID, assigneeID, userID) == want {
		return false, nil
	}
	if err := subs.Set(ctx, target, userID, want); err != nil {
		return false, fmt.Errorf("subscribe user %d: %w", userID, err)
	}
	return true, nil
}

// AddTodo puts a pending todo about target on userID's list; the todo
// and whether it is new come back (a pending one of the same action is
// kept, as GitLab does).
func AddTodo(ctx context.Context, todos ports.TodoStore, target domain.Subject, projectID, userID, actor int64, action, title string, now time.Time) (*domain.Todo, bool, error) {
	td, created, err := todos.CreatePending(ctx, &domain.Todo{UserID: userID, ProjectID: projectID, AuthorID: actor,
		TargetType: target.Type, TargetID: target.ID, Action: action, State: domain.TodoPending,
		Body: title, CreatedAt: now, UpdatedAt: now})
	if err != nil {
		return nil, false, fmt.Errorf("todo for user %d: %w", userID, err)
	}
	return td, created, nil
}
