package ci

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
)

// LintResult is GitLab 9.x's answer of POST /ci/lint.
type LintResult struct {
	Valid  bool
	Errors []string
}

// Lint checks a configuration with the parser pipelines use. It has no
// project, so an include names no file that exists. A nil content is
// GitLab's "content is missing"; an empty one is invalid.
func (s *Service) Lint(ctx context.Context, content *string) (*LintResult, error) {
	if content == nil {
		return nil, core.MissingParam("content")
	}
	_, err := s.p.Parser.Parse(ctx, []byte(*content), nil)
	var ce *core.Error
	switch {
	case err == nil:
		return &LintResult{Valid: true, Errors: []string{}}, nil
	case errors.As(err, &ce) && errors.Is(err, core.ErrInvalid):
		return &LintResult{Errors: []string{ce.Msg}}, nil
	}
	return nil, fmt.Errorf("lint: %w", err)
}
