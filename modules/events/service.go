package events

import (
	"context"
	"fmt"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Params are the service's dependencies, provided by the app.
type Params struct {
	fx.In
	Events ports.EventStore
	Users  ports.UserStore
	Bus    ports.EventBus
	Clock  ports.Clock
	Policy *access.Policy
	// Projects and Namespaces describe pushed projects; the external URL
	// (Config) makes push data's links.
	Projects   ports.ProjectStore
	Namespaces ports.NamespaceStore
	Config     config.Config
	// MergeRequests, Issues and Milestones give events their target_iid
	// and note events their noteable's title, with Snippets.
	MergeRequests ports.MergeRequestStore
	Issues        ports.IssueStore
	Milestones    ports.MilestoneReader
	Snippets      ports.SnippetStore
	// Notes embeds the note in "commented on" events.
	Notes ports.NoteStore
	Log   *zap.Logger
}

// Service records and lists feed events. It never sees HTTP types.
type Service struct{ p Params }

// NewService builds the service.
func NewService(p Params) *Service { return &Service{p: p} }

// Record stores one event, stamping its time.
func (s *Service) Record(ctx context.Context, e *domain.Event) error {
	if e.CreatedAt.IsZero() {
		e.CreatedAt = s.p.Clock.Now().UTC()
	}
	if err := s.p.Events.Create(ctx, e); err != nil {
		return fmt.Errorf("record %s event: %w", e.Action, err)
	}
	return nil
}

// recordProjectEvent records e and moves its project's last activity, as
// every project event does in GitLab.
func (s *Service) recordProjectEvent(ctx context.Context, e *domain.Event) error {
	if err := s.Record(ctx, e); err != nil {
		return err
	}
	if err := s.p.Projects.TouchActivity(ctx, *e.ProjectID, e.CreatedAt); err != nil {
		return fmt.Errorf("record %s event: project activity: %w", e.Action, err)
	}
	return nil
}
