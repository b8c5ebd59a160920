package access

import (
	"context"
	"errors"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// ProjectByRef finds a project by numeric ID or full path and returns it with the
// caller's rights. A project that is missing or that the caller may not read
// is the same 404 "Project Not Found": existence is never revealed.
func (p *Policy) ProjectByRef(ctx context.Context, caller *domain.Caller, id int64, path string) (*domain.Project, Rights, error) {
	var proj *domain.Project
	var err error
	if path != "" {
		proj, err = p.projects.GetByFullPath(ctx, path)
	} else {
		proj, err = p.projects.Get(ctx, id)
	}
	if errors.Is(err, core.ErrNotFound) {
		return nil, Rights{}, core.NotFound("Project")
	}
	if err != nil {
		return nil, Rights{}, err
	}
	r, err := p.Project(ctx, caller, proj)
	if err != nil {
		return nil, Rights{}, err
	}
	if !r.Read {
		return nil, Rights{}, core.NotFound("Project")
	}
	return proj, r, nil
}

// GroupByRef finds a group by numeric ID or full path; missing and unreadable
// groups are the same 404 "Group Not Found".
func (p *Policy) GroupByRef(ctx context.Context, caller *domain.Caller, id int64, path string) (*domain.Namespace, Rights, error) {
	var g *domain.Namespace
	var err error
	if path != "" {
		g, err = p.namespaces.GetByFullPath(ctx, path)
	} else {
		g, err = p.namespaces.Get(ctx, id)
	}
	if errors.Is(err, core.ErrNotFound) || (err == nil && g.Kind != domain.NamespaceGroup) {
		return nil, Rights{}, core.NotFound("Group")
	}
	if err != nil {
		return nil, Rights{}, err
	}
	r, err := p.Group(ctx, caller, g)
	if err != nil {
		return nil, Rights{}, err
	}
	if !r.Read {
		return nil, Rights{}, core.NotFound("Group")
	}
	return g, r, nil
}
