package repository

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// GitLab 9.x's tag and release messages (app/services/tags/create_service.rb,
// create_release_service.rb).
const (
	msgTagNameInvalid   = "Tag name invalid"
	msgReleaseExists    = "Release already exists"
	msgTagMovedOnDelete = "The tag changed while it was being removed; try again"
)

func msgTagExists(name string) string    { return "Tag " + name + " already exists" }
func msgTargetInvalid(ref string) string { return "Target " + ref + " is invalid" }

// TagInfo is a tag with its release, nil when it has none.
type TagInfo struct {
	domain.Tag
	Release *domain.Release
}

// ListTags lists one page of the project's tags, newest name first, and
// how many there are.
func (s *Service) ListTags(ctx context.Context, req Request, pg domain.Page) ([]TagInfo, int, error) {
	t, err := s.target(ctx, req, toRead)
	if err != nil {
		return nil, 0, err
	}
	p := t.Project
	all, err := listRefs(ctx, p, s.p.Reader.Tags, "tags")
	if err != nil {
		return nil, 0, err
	}
	slices.Reverse(all)
	page := pageOf(all, pg)
	releases := map[string]domain.Release{}
	if len(page) > 0 {
		names := make([]string, len(page))
		for i, tg := range page {
			names[i] = tg.Name
		}
		if releases, err = s.p.Releases.ListByTags(ctx, p.ID, names); err != nil {
			return nil, 0, fmt.Errorf("releases of project %d: %w", p.ID, err)
		}
	}
	out := make([]TagInfo, 0, len(page))
	for _, tg := range page {
		info := TagInfo{Tag: tg}
		if rel, ok := releases[tg.Name]; ok {
			info.Release = &rel
		}
		out = append(out, info)
	}
	return out, len(all), nil
}

// GetTag reads one tag and its release.
func (s *Service) GetTag(ctx context.Context, req Request, name string) (TagInfo, error) {
	t, err := s.target(ctx, req, toRead)
	if err != nil {
		return TagInfo{}, err
	}
	tg, err := s.readTag(ctx, t.Project, name)
	if err != nil {
		return TagInfo{}, err
	}
	rel, err := s.releaseOf(ctx, t.Project.ID, tg.Name)
	if err != nil {
		return TagInfo{}, err
	}
	return TagInfo{Tag: tg, Release: rel}, nil
}

// CreateTag makes a tag (annotated when in.Message is not blank, signed
// by the caller), with release notes when in.ReleaseDescription is given.
// Failures to create the tag are 405s with GitLab's explanation.
func (s *Service) CreateTag(ctx context.Context, req Request, in CreateTagInput) (TagInfo, error) {
	t, err := s.target(ctx, req, toPush)
	if err != nil {
		return TagInfo{}, err
	}
	if !validRefShortName(in.TagName) {
		return TagInfo{}, core.NotAllowed(msgTagNameInvalid)
	}
	p, repo := t.Project, repoOf(t.Project)
	message := ""
	if in.Message != nil {
		message = strings.TrimSpace(*in.Message)
	}
	tg, err := s.p.Writer.CreateTag(ctx, repo, in.TagName, in.Ref, message, s.callerSignature(req.Caller))
	switch {
	case errors.Is(err, core.ErrConflict) || errors.Is(err, core.ErrStale):
		return TagInfo{}, core.NotAllowed(msgTagExists(in.TagName))
	case errors.Is(err, core.ErrNotFound):
		return TagInfo{}, core.NotAllowed(msgTargetInvalid(in.Ref))
	case errors.Is(err, core.ErrInvalid):
		// The name passed GitLab's check, so git refused the target (or a
		// name clash such as "a" next to "a/b").
		if _, rerr := s.p.Reader.Resolve(ctx, repo, in.Ref); rerr != nil {
			return TagInfo{}, core.NotAllowed(msgTargetInvalid(in.Ref))
		}
		return TagInfo{}, core.NotAllowed(msgTagNameInvalid)
	case err != nil:
		return TagInfo{}, fmt.Errorf("create tag %q: %w", in.TagName, err)
	}
	s.publishRef(ctx, p, req.Caller, domain.TagPrefix+tg.Name, domain.ZeroID, tg.TargetID)
	info := TagInfo{Tag: tg}
	if in.ReleaseDescription != nil {
		stored, err := s.storeRelease(ctx, p.ID, tg.Name, *in.ReleaseDescription)
		if err != nil {
			return TagInfo{}, err
		}
		info.Release = &stored
	} else if info.Release, err = s.releaseOf(ctx, p.ID, tg.Name); err != nil {
		return TagInfo{}, err
	}
	return info, nil
}

// DeleteTag removes a tag and its release (GitLab's Tags::DestroyService).
func (s *Service) DeleteTag(ctx context.Context, req Request, name string) error {
	t, err := s.target(ctx, req, toPush)
	if err != nil {
		return err
	}
	p := t.Project
	tg, err := s.readTag(ctx, p, name)
	if err != nil {
		return err
	}
	full := domain.TagPrefix + tg.Name
	switch err := s.p.Writer.UpdateRef(ctx, repoOf(p), full, domain.ZeroID, tg.TargetID); {
	case errors.Is(err, core.ErrStale):
		return core.Conflict(msgTagMovedOnDelete)
	case errors.Is(err, core.ErrNotFound):
		return core.NotFound("Tag")
	case err != nil:
		return fmt.Errorf("delete tag %q: %w", tg.Name, err)
	}
	s.publishRef(ctx, p, req.Caller, full, tg.TargetID, domain.ZeroID)
	if err := s.p.Releases.Delete(ctx, p.ID, tg.Name); err != nil {
		return fmt.Errorf("delete release of tag %q: %w", tg.Name, err)
	}
	return nil
}

// CreateRelease adds release notes to a tag that has none (409 otherwise).
func (s *Service) CreateRelease(ctx context.Context, req Request, tag string, in ReleaseInput) (domain.Release, error) {
	p, tg, err := s.releaseTag(ctx, req, tag)
	if err != nil {
		return domain.Release{}, err
	}
	now := s.now()
	rel, err := s.p.Releases.Create(ctx, domain.Release{ProjectID: p.ID, TagName: tg.Name, Description: in.Description, CreatedAt: now, UpdatedAt: now})
	switch {
	case errors.Is(err, core.ErrConflict):
		return domain.Release{}, core.Conflict(msgReleaseExists)
	case err != nil:
		return domain.Release{}, fmt.Errorf("create release of tag %q: %w", tg.Name, err)
	}
	return rel, nil
}

// UpdateRelease changes the release notes of a tag (404 when it has none).
func (s *Service) UpdateRelease(ctx context.Context, req Request, tag string, in ReleaseInput) (domain.Release, error) {
	p, tg, err := s.releaseTag(ctx, req, tag)
	if err != nil {
		return domain.Release{}, err
	}
	rel, err := s.p.Releases.Update(ctx, p.ID, tg.Name, in.Description)
	switch {
	case errors.Is(err, core.ErrNotFound):
		return domain.Release{}, core.NotFound("Release")
	case err != nil:
		return domain.Release{}, fmt.Errorf("update release of tag %q: %w", tg.Name, err)
	}
	return rel, nil
}

// releaseTag is where both release use cases start: a developer, an
// existing tag.
func (s *Service) releaseTag(ctx context.Context, req Request, name string) (*domain.Project, domain.Tag, error) {
	t, err := s.target(ctx, req, toPush)
	if err != nil {
		return nil, domain.Tag{}, err
	}
	tg, err := s.readTag(ctx, t.Project, name)
	if err != nil {
		return nil, domain.Tag{}, err
	}
	return t.Project, tg, nil
}

// readTag reads the tag name of p; names no tag can have are a 404.
func (s *Service) readTag(ctx context.Context, p *domain.Project, name string) (domain.Tag, error) {
	if !validRefShortName(name) {
		return domain.Tag{}, core.NotFound("Tag")
	}
	tg, err := s.p.Reader.Tag(ctx, repoOf(p), name)
	if errors.Is(err, core.ErrInvalid) {
		return domain.Tag{}, core.NotFound("Tag")
	}
	if err != nil {
		return domain.Tag{}, backendErr(err, "Tag", "read tag")
	}
	return tg, nil
}

// releaseOf reads the release of a tag, nil when it has none.
func (s *Service) releaseOf(ctx context.Context, projectID int64, tag string) (*domain.Release, error) {
	rel, err := s.p.Releases.Get(ctx, projectID, tag)
	switch {
	case errors.Is(err, core.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("release of tag %q: %w", tag, err)
	}
	return &rel, nil
}

// storeRelease records the release of a tag created with
// release_description, replacing one left behind by an earlier tag of the
// same name (deleted by a git push, which does not touch releases).
func (s *Service) storeRelease(ctx context.Context, projectID int64, tag, description string) (domain.Release, error) {
	now := s.now()
	rel, err := s.p.Releases.Create(ctx, domain.Release{ProjectID: projectID, TagName: tag, Description: description, CreatedAt: now, UpdatedAt: now})
	if errors.Is(err, core.ErrConflict) {
		rel, err = s.p.Releases.Update(ctx, projectID, tag, description)
	}
	if err != nil {
		return domain.Release{}, fmt.Errorf("store release of tag %q: %w", tag, err)
	}
	return rel, nil
}
