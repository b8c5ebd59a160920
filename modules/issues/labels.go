package issues

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/issuable"
)

// Labels are read by whoever reads the project and written by reporters
// and up (admin_label, as AdminIssue). Their counts are what the caller
// may see.

// LabelPage is one page of a project's labels with the counts the caller
// sees, and the total.
type LabelPage struct {
	Labels []domain.Label
	Counts map[string]domain.LabelCounts
	Total  int
}

// ListLabels is one page of the project's labels, sorted by name.
func (s *Service) ListLabels(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in issuable.PageInput) (LabelPage, error) {
	t, err := s.p.Policy.Resolve(ctx, caller, ref)
	if err != nil {
		return LabelPage{}, err
	}
	if in.Invalid != nil {
		return LabelPage{}, in.Invalid
	}
	labels, err := s.p.Labels.List(ctx, t.Project.ID)
	if err != nil {
		return LabelPage{}, fmt.Errorf("list labels: %w", err)
	}
	c, err := s.counts(ctx, t)
	if err != nil {
		return LabelPage{}, err
	}
	return LabelPage{Labels: issuable.PageOf(labels, in.Page), Counts: c, Total: len(labels)}, nil
}

// CreateLabel adds a label to the project; it returns the label and its
// counts.
func (s *Service) CreateLabel(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in LabelCreateInput) (*domain.Label, domain.LabelCounts, error) {
	t, err := s.admin(ctx, caller, ref)
	if err != nil {
		return nil, domain.LabelCounts{}, err
	}
	if in.Invalid != nil {
		return nil, domain.LabelCounts{}, in.Invalid
	}
	l := &domain.Label{ProjectID: t.Project.ID, Name: strings.TrimSpace(in.Name), Color: strings.TrimSpace(in.Color),
		Description: in.Description, CreatedAt: s.now(), UpdatedAt: s.now()}
	if err := checkLabel(l); err != nil {
		return nil, domain.LabelCounts{}, err
	}
	if err := s.p.Labels.Create(ctx, l); err != nil {
		return nil, domain.LabelCounts{}, labelError(err, "create label")
	}
	return s.withCounts(ctx, t, l)
}

// UpdateLabel renames, recolors or redescribes a label; a rename carries
// over to issues and merge requests (the store does it).
func (s *Service) UpdateLabel(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in LabelUpdateInput) (*domain.Label, domain.LabelCounts, error) {
	t, err := s.admin(ctx, caller, ref)
	if err != nil {
		return nil, domain.LabelCounts{}, err
	}
	if in.Invalid != nil {
		return nil, domain.LabelCounts{}, in.Invalid
	}
	if in.NewName == nil && in.Color == nil && in.Description == nil {
		return nil, domain.LabelCounts{}, &core.Error{Kind: core.ErrInvalid, Param: true,
			Msg: "new_name, color, description are missing, at least one parameter must be provided"}
	}
	l, err := s.p.Labels.Update(ctx, t.Project.ID, strings.TrimSpace(in.Name), func(l *domain.Label) error {
		if in.NewName != nil {
			l.Name = strings.TrimSpace(*in.NewName)
		}
		if in.Color != nil {
			l.Color = strings.TrimSpace(*in.Color)
		}
		if in.Description != nil {
			l.Description = *in.Description
		}
		l.UpdatedAt = s.now()
		return checkLabel(l)
	})
	if err != nil {
		return nil, domain.LabelCounts{}, labelError(err, "update label")
	}
	return s.withCounts(ctx, t, l)
}

// DeleteLabel removes a label from the project, its issues and merge
// requests.
func (s *Service) DeleteLabel(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in LabelDeleteInput) error {
	t, err := s.admin(ctx, caller, ref)
	if err != nil {
		return err
	}
	if in.Invalid != nil {
		return in.Invalid
	}
	if err := s.p.Labels.Delete(ctx, t.Project.ID, strings.TrimSpace(in.Name)); err != nil {
		return labelError(err, "delete label")
	}
	return nil
}

// counts are the label counts the caller may see in the project.
func (s *Service) counts(ctx context.Context, t access.Target) (map[string]domain.LabelCounts, error) {
	c, err := s.p.Labels.Counts(ctx, t.Project.ID, t.IssueViewer())
	if err != nil {
		return nil, fmt.Errorf("count labels: %w", err)
	}
	return c, nil
}

func (s *Service) withCounts(ctx context.Context, t access.Target, l *domain.Label) (*domain.Label, domain.LabelCounts, error) {
	c, err := s.counts(ctx, t)
	if err != nil {
		return nil, domain.LabelCounts{}, err
	}
	return l, c[l.Name], nil
}

// labelError gives store errors GitLab's label messages.
func labelError(err error, doing string) error {
	if errors.Is(err, core.ErrConflict) {
		return core.Conflict("Label already exists")
	}
	return core.StoreError(err, "Label", doing)
}
