package ciconfig

import (
	"bytes"
	"context"
	"errors"
	"unicode/utf8"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Parser reads .gitlab-ci.yml files (GitLab 9.x keywords, plus include of
// local files) within its limits.
type Parser struct {
	limits Limits
}

// New returns a parser with limits, zero fields taking the defaults. The
// app gives it config.CI.MaxConfigBytes:
//
//	ciconfig.New(ciconfig.Limits{MaxBytes: cfg.CI.MaxConfigBytes})
func New(limits Limits) *Parser {
	return &Parser{limits: limits.withDefaults()}
}

// Parse reads src. An invalid configuration is core.ErrInvalid whose
// message is GitLab's (several joined by ", "), meant for the pipeline's
// yaml_errors. Other errors are include's own (wrapped) or ctx's.
func (p *Parser) Parse(ctx context.Context, src []byte, include func(ctx context.Context, path string) ([]byte, error)) (*domain.PipelineConfig, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cfg, err := p.parse(ctx, src, include)
	var pr problem
	if errors.As(err, &pr) {
		return nil, core.BadRequest(truncate(string(pr), maxMessageBytes))
	}
	return cfg, err
}

// maxMessageBytes caps yaml_errors: a file of a thousand long unknown keys
// must not make a megabyte of message.
const maxMessageBytes = 16 << 10

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

func (p *Parser) parse(ctx context.Context, src []byte, include func(ctx context.Context, path string) ([]byte, error)) (*domain.PipelineConfig, error) {
	if int64(len(src)) > p.limits.MaxBytes {
		return nil, problemf("The configuration file is too big: %d bytes, the limit is %d bytes", len(src), p.limits.MaxBytes)
	}
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, problem("Please provide content of .gitlab-ci.yml")
	}
	l := &loader{limits: p.limits, nodes: p.limits.MaxNodes}
	root, err := l.load(src)
	if err != nil {
		return nil, err
	}
	if root.kind != mapKind {
		return nil, problem("Invalid configuration format")
	}
	in := &includer{loader: l, read: include, seen: map[string]bool{}}
	if root, err = in.expand(ctx, root); err != nil {
		return nil, err
	}
	return build(root, p.limits)
}

var _ ports.PipelineConfigParser = (*Parser)(nil)
