package issues

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/issuable"
)

// changeNotes are GitLab's system notes for an edit of an issue, in the
// order its update service writes them: the shared fields, then
// confidentiality, labels and due date.
func (s *Service) changeNotes(ctx context.Context, before, after *domain.Issue) []string {
	out := s.activity.ChangeNotes(ctx, fieldsOf(before), fieldsOf(after))
	if before.Confidential != after.Confidential {
		if after.Confidential {
			out = append(out, "made the issue confidential")
		} else {
			out = append(out, "made the issue visible to everyone")
		}
	}
	if note := issuable.LabelsNote(before.Labels, after.Labels); note != "" {
		out = append(out, note)
	}
	if !issuable.SameDate(before.DueDate, after.DueDate) {
		if after.DueDate == nil {
			out = append(out, "removed due date")
		} else {
			// Rails' Date#to_s(:long): "%B %e, %Y".
			out = append(out, "changed due date to "+after.DueDate.Format("January _2, 2006"))
		}
	}
	return out
}

func fieldsOf(is *domain.Issue) issuable.Fields {
	return issuable.Fields{State: is.State, Title: is.Title, Description: is.Description,
		AssigneeID: is.AssigneeID, MilestoneID: is.MilestoneID}
}
