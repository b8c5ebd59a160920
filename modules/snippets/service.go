package snippets

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Params are the service's dependencies, provided by the app.
type Params struct {
	fx.In
	Snippets ports.SnippetStore
	Clock    ports.Clock
	Policy   *access.Policy
	// Settings are the application settings (visibility restrictions);
	// without them nothing is restricted.
	Settings ports.Settings `optional:"true"`
}

// Service holds the snippet use cases. It never sees HTTP types.
type Service struct{ p Params }

// NewService builds the service.
func NewService(p Params) *Service { return &Service{p: p} }

// now is truncated to milliseconds, the precision clients see.
func (s *Service) now() time.Time { return s.p.Clock.Now().UTC().Truncate(time.Millisecond) }

// Found is a snippet with the project it belongs to (its web URL needs
// the project's path).
type Found struct {
	Project *domain.Project
	Snippet *domain.Snippet
}

// load reads snippet id of the target's project; one the caller may not
// read is as missing as one that does not exist, and so is an id that
// cannot exist (0).
func (s *Service) load(ctx context.Context, t access.Target, id int64) (*domain.Snippet, error) {
	if id <= 0 {
		return nil, core.NotFound("Snippet")
	}
	sn, err := s.p.Snippets.Get(ctx, t.Project.ID, id)
	if errors.Is(err, core.ErrNotFound) {
		return nil, core.NotFound("Snippet")
	}
	if err != nil {
		return nil, fmt.Errorf("read snippet: %w", err)
	}
	if !t.Can(access.ReadSnippet, access.OnSnippet(sn)) {
		return nil, core.NotFound("Snippet")
	}
	return sn, nil
}
