package issues

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/domain"
)

// changeNotes are GitLab's system notes for an edit, in the order its
// update service writes them: state first, then the other fields.
func (s *Service) changeNotes(ctx context.Context, before, after *domain.Issue) []string {
	var out []string
	if before.State != after.State {
		out = append(out, after.State)
	}
	if before.Title != after.Title {
		out = append(out, fmt.Sprintf("changed title from **%s** to **%s**", before.Title, after.Title))
	}
	if before.Description != after.Description {
		out = append(out, "changed the description")
	}
	if !sameID(before.AssigneeID, after.AssigneeID) {
		if after.AssigneeID == nil {
			out = append(out, "removed assignee")
		} else {
			out = append(out, "assigned to @"+s.username(ctx, *after.AssigneeID))
		}
	}
	if !sameID(before.MilestoneID, after.MilestoneID) {
		if after.MilestoneID == nil {
			out = append(out, "removed milestone")
		} else {
			out = append(out, "changed milestone to "+s.milestoneRef(ctx, after.ProjectID, *after.MilestoneID))
		}
	}
	if before.Confidential != after.Confidential {
		if after.Confidential {
			out = append(out, "made the issue confidential")
		} else {
			out = append(out, "made the issue visible to everyone")
		}
	}
	if note := labelsNote(before.Labels, after.Labels); note != "" {
		out = append(out, note)
	}
	if !sameDate(before.DueDate, after.DueDate) {
		if after.DueDate == nil {
			out = append(out, "removed due date")
		} else {
			// Rails' Date#to_s(:long): "%B %e, %Y".
			out = append(out, "changed due date to "+after.DueDate.Format("January _2, 2006"))
		}
	}
	return out
}

// username names a user for a note ("" when the user is gone).
func (s *Service) username(ctx context.Context, id int64) string {
	u, err := s.p.Users.Get(ctx, id)
	if err != nil {
		s.log.Warn("username for a note", zap.Int64("user_id", id), zap.Error(err))
		return ""
	}
	return u.Username
}

// milestoneRef is GitLab's milestone reference, "%<iid>".
func (s *Service) milestoneRef(ctx context.Context, projectID, id int64) string {
	m, err := s.p.Milestones.Get(ctx, projectID, id)
	if err != nil {
		s.log.Warn("milestone for a note", zap.Int64("milestone_id", id), zap.Error(err))
		return fmt.Sprintf("%%%d", id)
	}
	return fmt.Sprintf("%%%d", m.IID)
}

// labelsNote is "added ~"a" label and removed ~"b" ~"c" labels".
func labelsNote(before, after []string) string {
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
