package issuable

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Fields are the parts of an issue or merge request whose edits both
// note in the same words.
type Fields struct {
	State                   string
	Title, Description      string
	AssigneeID, MilestoneID *int64
	// WorkInProgress is a merge request's WIP title prefix (always false
	// for issues).
	WorkInProgress bool
}

// ChangeNotes are GitLab's system notes for an edit of the shared fields, in
// the order its update services write them: state, title (and the WIP
// mark it carries), description, assignee, milestone. Each module adds
// its own fields' notes after these.
func (a *Activity) ChangeNotes(ctx context.Context, before, after Fields) []string {
	var out []string
	if before.State != after.State {
		out = append(out, after.State)
	}
	if before.Title != after.Title {
		out = append(out, fmt.Sprintf("changed title from **%s** to **%s**", before.Title, after.Title))
		if before.WorkInProgress != after.WorkInProgress {
			if after.WorkInProgress {
				out = append(out, "marked as a **Work In Progress**")
			} else {
				out = append(out, "unmarked as a **Work In Progress**")
			}
		}
	}
	if before.Description != after.Description {
		out = append(out, "changed the description")
	}
	if !SameID(before.AssigneeID, after.AssigneeID) {
		if after.AssigneeID == nil {
			out = append(out, "removed assignee")
		} else {
			out = append(out, "assigned to @"+a.username(ctx, *after.AssigneeID))
		}
	}
	if !SameID(before.MilestoneID, after.MilestoneID) {
		if after.MilestoneID == nil {
			out = append(out, "removed milestone")
		} else {
			out = append(out, "changed milestone to "+a.milestoneRef(ctx, *after.MilestoneID))
		}
	}
	return out
}

// username names a user for a note ("" when the user is gone).
func (a *Activity) username(ctx context.Context, id int64) string {
	users, err := a.Users.GetMany(ctx, []int64{id})
	if err != nil || len(users) == 0 {
		return ""
	}
	return users[0].Username
}

// milestoneRef is GitLab's milestone reference, "%<iid>" (the ID when the
// milestone cannot be read).
func (a *Activity) milestoneRef(ctx context.Context, id int64) string {
	if a.Milestones != nil {
		if ms, err := a.Milestones.GetMany(ctx, []int64{id}); err == nil && len(ms) == 1 {
			return fmt.Sprintf("%%%d", ms[0].IID)
		}
	}
	return fmt.Sprintf("%%%d", id)
}

// LabelsNote is `added ~"a" label and removed ~"b" ~"c" labels` ("" when
// the labels stay).
func LabelsNote(before, after []string) string {
	var added, removed []string
	for _, l := range after {
		if !slices.Contains(before, l) {
			added = append(added, l)
		}
	}
	for _, l := range before {
		if !slices.Contains(after, l) {
			removed = append(removed, l)
		}
	}
	var parts []string
	if len(added) > 0 {
		parts = append(parts, "added "+labelRefs(added)+plural(" label", len(added)))
	}
	if len(removed) > 0 {
		parts = append(parts, "removed "+labelRefs(removed)+plural(" label", len(removed)))
	}
	return strings.Join(parts, " and ")
}

func labelRefs(labels []string) string {
	refs := make([]string, len(labels))
	for i, l := range labels {
		refs[i] = fmt.Sprintf("~%q", l)
	}
	return strings.Join(refs, " ")
}

func plural(word string, n int) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// SameID compares optional references.
func SameID(a, b *int64) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// SameDate compares optional dates.
func SameDate(a, b *time.Time) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && a.Equal(*b))
}
