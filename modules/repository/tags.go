package repository

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
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

// tagRoutes lists the Tags and releases endpoints.
func (h handlers) tagRoutes() []httpx.Route {
	const base = "/projects/{id}/repository/tags"
	return []httpx.Route{
		{Method: http.MethodGet, Pattern: base, Handle: h.listTags},
		{Method: http.MethodPost, Pattern: base, Handle: h.createTag},
		{Method: http.MethodGet, Pattern: base + "/{tag_name}", Handle: h.getTag},
		{Method: http.MethodDelete, Pattern: base + "/{tag_name}", Handle: h.deleteTag},
		{Method: http.MethodPost, Pattern: base + "/{tag_name}/release", Handle: h.createRelease},
		{Method: http.MethodPut, Pattern: base + "/{tag_name}/release", Handle: h.updateRelease},
	}
}

// releaseJSON is GitLab 9.x's Release entity.
type releaseJSON struct {
	TagName     string `json:"tag_name"`
	Description string `json:"description"`
}

// tagJSON is GitLab 9.x's RepoTag entity: message is null for a
// lightweight tag, release null when the tag has none.
type tagJSON struct {
	Name    string       `json:"name"`
	Message *string      `json:"message"`
	Commit  commitJSON   `json:"commit"`
	Release *releaseJSON `json:"release"`
}

func newReleaseJSON(r domain.Release) releaseJSON {
	return releaseJSON{TagName: r.TagName, Description: r.Description}
}

func newTagJSON(t domain.Tag, rel *domain.Release) tagJSON {
	out := tagJSON{Name: t.Name, Message: t.Message, Commit: newCommitJSON(t.Commit)}
	if rel != nil {
		j := newReleaseJSON(*rel)
		out.Release = &j
	}
	return out
}

// tagNameParam reads the URL-encoded {tag_name} path parameter; names no
// tag can have are a 404.
func tagNameParam(r *http.Request) (string, error) {
	name, err := httpx.PathParam(r, "tag_name")
	if err != nil {
		return "", err
	}
	if !validRefShortName(name) {
		return "", core.NotFound("Tag")
	}
	return name, nil
}

// readTag reads the tag {tag_name} of p.
func (h handlers) readTag(r *http.Request, p *domain.Project) (domain.Tag, error) {
	name, err := tagNameParam(r)
	if err != nil {
		return domain.Tag{}, err
	}
	t, err := h.s.p.Repos.Tag(r.Context(), repoOf(p), name)
	if errors.Is(err, core.ErrInvalid) {
		return domain.Tag{}, core.NotFound("Tag")
	}
	if err != nil {
		return domain.Tag{}, backendErr(err, "Tag", "read tag")
	}
	return t, nil
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

// GET /projects/:id/repository/tags, newest name first.
func (h handlers) listTags(w http.ResponseWriter, r *http.Request) error {
	p, _, err := h.readable(r)
	if err != nil {
		return err
	}
	pg, err := httpx.PageOf(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	all, err := h.s.p.Repos.Tags(ctx, repoOf(p))
	switch {
	case errors.Is(err, core.ErrNotFound):
		all = nil // no repository: no tags, as GitLab answers
	case err != nil:
		return fmt.Errorf("list tags of project %d: %w", p.ID, err)
	}
	slices.Reverse(all)
	page := pageOf(all, pg)
	releases := map[string]domain.Release{}
	if len(page) > 0 {
		names := make([]string, len(page))
		for i, t := range page {
			names[i] = t.Name
		}
		if releases, err = h.s.p.Releases.ListByTags(ctx, p.ID, names); err != nil {
			return fmt.Errorf("releases of project %d: %w", p.ID, err)
		}
	}
	out := make([]tagJSON, 0, len(page))
	for _, t := range page {
		var rel *domain.Release
		if found, ok := releases[t.Name]; ok {
			rel = &found
		}
		out = append(out, newTagJSON(t, rel))
	}
	return httpx.Paginated(w, r, out, len(all), pg)
}

// GET /projects/:id/repository/tags/:tag_name
func (h handlers) getTag(w http.ResponseWriter, r *http.Request) error {
	p, _, err := h.readable(r)
	if err != nil {
		return err
	}
	t, err := h.readTag(r, p)
	if err != nil {
		return err
	}
	rel, err := h.s.releaseOf(r.Context(), p.ID, t.Name)
	if err != nil {
		return err
	}
	return httpx.OK(w, newTagJSON(t, rel))
}

// POST /projects/:id/repository/tags. Failures to create the tag are 405s
// with GitLab's explanation, as the spec has it.
func (h handlers) createTag(w http.ResponseWriter, r *http.Request) error {
	caller, p, _, err := h.writable(r, domain.Developer)
	if err != nil {
		return err
	}
	var in struct {
		TagName            string  `param:"tag_name,required,nul"`
		Ref                string  `param:"ref,required"`
		Message            *string `param:"message"`
		ReleaseDescription *string `param:"release_description"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return err
	}
	if p.Archived {
		return core.Forbidden("")
	}
	if !validRefShortName(in.TagName) {
		return core.NotAllowed(msgTagNameInvalid)
	}
	ctx, repo := r.Context(), repoOf(p)
	message := ""
	if in.Message != nil {
		message = strings.TrimSpace(*in.Message)
	}
	t, err := h.s.p.Repos.CreateTag(ctx, repo, in.TagName, in.Ref, message, h.s.callerSignature(caller))
	switch {
	case errors.Is(err, core.ErrConflict) || errors.Is(err, core.ErrStale):
		return core.NotAllowed(msgTagExists(in.TagName))
	case errors.Is(err, core.ErrNotFound):
		return core.NotAllowed(msgTargetInvalid(in.Ref))
	case errors.Is(err, core.ErrInvalid):
		// The name passed GitLab's check, so git refused the target (or a
		// name clash such as "a" next to "a/b").
		if _, rerr := h.s.p.Repos.Resolve(ctx, repo, in.Ref); rerr != nil {
			return core.NotAllowed(msgTargetInvalid(in.Ref))
		}
		return core.NotAllowed(msgTagNameInvalid)
	case err != nil:
		return fmt.Errorf("create tag %q: %w", in.TagName, err)
	}
	h.s.publishRef(ctx, p, caller, domain.TagPrefix+t.Name, domain.ZeroID, t.TargetID)
	var rel *domain.Release
	if in.ReleaseDescription != nil {
		stored, err := h.s.storeRelease(ctx, p.ID, t.Name, *in.ReleaseDescription)
		if err != nil {
			return err
		}
		rel = &stored
	} else if rel, err = h.s.releaseOf(ctx, p.ID, t.Name); err != nil {
		return err
	}
	return httpx.Created(w, newTagJSON(t, rel))
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

// DELETE /projects/:id/repository/tags/:tag_name also removes the tag's
// release (GitLab's Tags::DestroyService).
func (h handlers) deleteTag(w http.ResponseWriter, r *http.Request) error {
	caller, p, _, err := h.writable(r, domain.Developer)
	if err != nil {
		return err
	}
	if p.Archived {
		return core.Forbidden("")
	}
	t, err := h.readTag(r, p)
	if err != nil {
		return err
	}
	ctx := r.Context()
	ref := domain.TagPrefix + t.Name
	switch err := h.s.p.Repos.UpdateRef(ctx, repoOf(p), ref, domain.ZeroID, t.TargetID); {
	case errors.Is(err, core.ErrStale):
		return core.Conflict(msgTagMovedOnDelete)
	case errors.Is(err, core.ErrNotFound):
		return core.NotFound("Tag")
	case err != nil:
		return fmt.Errorf("delete tag %q: %w", t.Name, err)
	}
	h.s.publishRef(ctx, p, caller, ref, t.TargetID, domain.ZeroID)
	if err := h.s.p.Releases.Delete(ctx, p.ID, t.Name); err != nil {
		return fmt.Errorf("delete release of tag %q: %w", t.Name, err)
	}
	return httpx.NoContent(w)
}

// releaseRequest is the preamble of both release endpoints: a developer,
// an existing tag, a description.
func (h handlers) releaseRequest(r *http.Request) (*domain.Project, domain.Tag, string, error) {
	_, p, _, err := h.writable(r, domain.Developer)
	if err != nil {
		return nil, domain.Tag{}, "", err
	}
	var in struct {
		Description string `param:"description,required"`
	}
	if err := httpx.Decode(r, &in); err != nil {
		return nil, domain.Tag{}, "", err
	}
	if p.Archived {
		return nil, domain.Tag{}, "", core.Forbidden("")
	}
	t, err := h.readTag(r, p)
	if err != nil {
		return nil, domain.Tag{}, "", err
	}
	return p, t, in.Description, nil
}

// POST /projects/:id/repository/tags/:tag_name/release (409 when the tag
// has one).
func (h handlers) createRelease(w http.ResponseWriter, r *http.Request) error {
	p, t, description, err := h.releaseRequest(r)
	if err != nil {
		return err
	}
	now := h.s.now()
	rel, err := h.s.p.Releases.Create(r.Context(), domain.Release{ProjectID: p.ID, TagName: t.Name, Description: description, CreatedAt: now, UpdatedAt: now})
	switch {
	case errors.Is(err, core.ErrConflict):
		return core.Conflict(msgReleaseExists)
	case err != nil:
		return fmt.Errorf("create release of tag %q: %w", t.Name, err)
	}
	return httpx.Created(w, newReleaseJSON(rel))
}

// PUT /projects/:id/repository/tags/:tag_name/release (404 when the tag has
// none).
func (h handlers) updateRelease(w http.ResponseWriter, r *http.Request) error {
	p, t, description, err := h.releaseRequest(r)
	if err != nil {
		return err
	}
	rel, err := h.s.p.Releases.Update(r.Context(), p.ID, t.Name, description)
	switch {
	case errors.Is(err, core.ErrNotFound):
		return core.NotFound("Release")
	case err != nil:
		return fmt.Errorf("update release of tag %q: %w", t.Name, err)
	}
	return httpx.OK(w, newReleaseJSON(rel))
}
