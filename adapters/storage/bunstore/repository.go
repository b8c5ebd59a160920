package bunstore

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// protectedBranchRow is a row of protected_branches, unique by
// (project_id, name).
type protectedBranchRow struct {
	bun.BaseModel `bun:"table:protected_branches,alias:pb"`

	ID               int64     `bun:"id,pk,autoincrement"`
	ProjectID        int64     `bun:"project_id"`
	Name             string    `bun:"name"`
	PushAccessLevel  int       `bun:"push_access_level"`
	MergeAccessLevel int       `bun:"merge_access_level"`
	CreatedAt        time.Time `bun:"created_at"`
}

func newProtectedBranchRow(b domain.ProtectedBranch) *protectedBranchRow {
	return &protectedBranchRow{
		ProjectID:        b.ProjectID,
		Name:             b.Name,
		PushAccessLevel:  int(b.PushAccessLevel),
		MergeAccessLevel: int(b.MergeAccessLevel),
		CreatedAt:        orNow(b.CreatedAt),
	}
}

func (r *protectedBranchRow) domain() domain.ProtectedBranch {
	return domain.ProtectedBranch{
		ID:               r.ID,
		ProjectID:        r.ProjectID,
		Name:             r.Name,
		PushAccessLevel:  domain.AccessLevel(r.PushAccessLevel),
		MergeAccessLevel: domain.AccessLevel(r.MergeAccessLevel),
		CreatedAt:        r.CreatedAt.UTC(),
	}
}

var protectedBranchTable = tableOf("Protected Branch", (*protectedBranchRow).domain)

type protectedBranchStore struct{ s *Store }

// Protect inserts the rule or, when the project already has one of that
// name, updates its two levels in the same statement (so concurrent calls
// never conflict); ID and CreatedAt stay those of the first rule. A zero
// CreatedAt means now. An unknown project is core.ErrNotFound.
func (st *protectedBranchStore) Protect(ctx context.Context, b domain.ProtectedBranch) (domain.ProtectedBranch, error) {
	row := newProtectedBranchRow(b)
	err := st.s.guarded(ctx, func(ctx context.Context, db bun.IDB) error {
		_, err := db.NewInsert().Model(row).
			On("CONFLICT (project_id, name) DO UPDATE").
			Set("push_access_level = EXCLUDED.push_access_level").
			Set("merge_access_level = EXCLUDED.merge_access_level").
			Returning("*").Exec(ctx)
		return writeErr(err, "Project")
	})
	if err != nil {
		return domain.ProtectedBranch{}, fmt.Errorf("bunstore: protect branch %q of project %d: %w", b.Name, b.ProjectID, err)
	}
	return row.domain(), nil
}

// Create inserts a new rule; the unique (project_id, name) index makes a
// rule of that name already there core.ErrConflict, even under
// concurrent calls.
func (st *protectedBranchStore) Create(ctx context.Context, b domain.ProtectedBranch) (domain.ProtectedBranch, error) {
	row := newProtectedBranchRow(b)
	if err := st.s.insert(ctx, row, parentErr("Project"), "id"); err != nil {
		return domain.ProtectedBranch{}, fmt.Errorf("bunstore: create protected branch %q of project %d: %w", b.Name, b.ProjectID, err)
	}
	return row.domain(), nil
}

// Get reads the rule named exactly name (a wildcard is a name like any
// other here).
func (st *protectedBranchStore) Get(ctx context.Context, projectID int64, name string) (domain.ProtectedBranch, error) {
	b, err := protectedBranchTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("pb.project_id = ? AND pb.name = ?", projectID, name))
	if err != nil {
		return domain.ProtectedBranch{}, fmt.Errorf("bunstore: get protected branch %q of project %d: %w", name, projectID, err)
	}
	return *b, nil
}

// Unprotect deletes the rule; nothing to delete is no error.
func (st *protectedBranchStore) Unprotect(ctx context.Context, projectID int64, name string) error {
	_, err := st.s.Conn(ctx).NewDelete().Model((*protectedBranchRow)(nil)).
		Where("project_id = ? AND name = ?", projectID, name).Exec(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: unprotect branch %q of project %d: %w", name, projectID, err)
	}
	return nil
}

// List orders by name (byte order on both dialects), then ID.
func (st *protectedBranchStore) List(ctx context.Context, projectID int64) ([]domain.ProtectedBranch, error) {
	out, err := protectedBranchTable.list(ctx, st.s.Conn(ctx).NewSelect().Where("pb.project_id = ?", projectID).
		OrderExpr(byteOrder(st.s, "pb.name")).Order("pb.id"))
	if err != nil {
		return nil, fmt.Errorf("bunstore: list protected branches of project %d: %w", projectID, err)
	}
	return out, nil
}

// byteOrder is an ORDER BY expression sorting col by bytes, as git sorts
// ref names: SQLite's default BINARY collation does, Postgres needs the C
// collation (its default follows the database locale).
func byteOrder(s *Store, col string) string {
	if s.db.Dialect().Name() == dialect.PG {
		return col + ` COLLATE "C"`
	}
	return col
}

// releaseRow is a row of releases, keyed by (project_id, tag_name).
type releaseRow struct {
	bun.BaseModel `bun:"table:releases,alias:r"`

	ProjectID   int64     `bun:"project_id,pk"`
	TagName     string    `bun:"tag_name,pk"`
	Description string    `bun:"description"`
	CreatedAt   time.Time `bun:"created_at"`
	UpdatedAt   time.Time `bun:"updated_at"`
}

func (r *releaseRow) domain() domain.Release {
	return domain.Release{
		ProjectID:   r.ProjectID,
		TagName:     r.TagName,
		Description: r.Description,
		CreatedAt:   r.CreatedAt.UTC(),
		UpdatedAt:   r.UpdatedAt.UTC(),
	}
}

var releaseTable = tableOf("Release", (*releaseRow).domain)

type releaseStore struct{ s *Store }

// errReleaseExists is GitLab's conflict for a second release of a tag.
func errReleaseExists() error {
	return &core.Error{Kind: core.ErrConflict, Msg: "Release already exists"}
}

// Create stores r; zero times mean now, and a zero UpdatedAt is CreatedAt.
// An unknown project is core.ErrNotFound.
func (st *releaseStore) Create(ctx context.Context, r domain.Release) (domain.Release, error) {
	row := &releaseRow{ProjectID: r.ProjectID, TagName: r.TagName, Description: r.Description}
	row.CreatedAt, row.UpdatedAt = created(r.CreatedAt, r.UpdatedAt)
	if err := st.s.insert(ctx, row, takenErr("", errReleaseExists, "Project")); err != nil {
		return domain.Release{}, fmt.Errorf("bunstore: create release of tag %q in project %d: %w", r.TagName, r.ProjectID, err)
	}
	return row.domain(), nil
}

// Update sets the description and moves UpdatedAt to now in one statement.
func (st *releaseStore) Update(ctx context.Context, projectID int64, tag, description string) (domain.Release, error) {
	row := new(releaseRow)
	res, err := st.s.Conn(ctx).NewUpdate().Model(row).
		Set("description = ?", description).Set("updated_at = ?", now()).
		Where("project_id = ? AND tag_name = ?", projectID, tag).
		Returning("*").Exec(ctx)
	if err == nil {
		err = mustAffect(res, "Release")
	}
	if err != nil {
		return domain.Release{}, fmt.Errorf("bunstore: update release of tag %q in project %d: %w", tag, projectID, err)
	}
	return row.domain(), nil
}

func (st *releaseStore) Get(ctx context.Context, projectID int64, tag string) (domain.Release, error) {
	r, err := releaseTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("r.project_id = ? AND r.tag_name = ?", projectID, tag))
	if err != nil {
		return domain.Release{}, fmt.Errorf("bunstore: get release of tag %q in project %d: %w", tag, projectID, err)
	}
	return *r, nil
}

// ListByTags costs one query, none for no tags.
func (st *releaseStore) ListByTags(ctx context.Context, projectID int64, tags []string) (map[string]domain.Release, error) {
	out := map[string]domain.Release{}
	if len(tags) == 0 {
		return out, nil
	}
	releases, err := releaseTable.list(ctx, st.s.Conn(ctx).NewSelect().
		Where("r.project_id = ? AND r.tag_name IN (?)", projectID, bun.List(dedupeStrings(tags))))
	if err != nil {
		return nil, fmt.Errorf("bunstore: list releases of %d tags in project %d: %w", len(tags), projectID, err)
	}
	for _, r := range releases {
		out[r.TagName] = r
	}
	return out, nil
}

// Delete removes the release; nothing to delete is no error.
func (st *releaseStore) Delete(ctx context.Context, projectID int64, tag string) error {
	if _, err := st.s.Conn(ctx).NewDelete().Model((*releaseRow)(nil)).
		Where("project_id = ? AND tag_name = ?", projectID, tag).Exec(ctx); err != nil {
		return fmt.Errorf("bunstore: delete release of tag %q in project %d: %w", tag, projectID, err)
	}
	return nil
}

func dedupeStrings(xs []string) []string {
	seen := make(map[string]struct{}, len(xs))
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		if _, ok := seen[x]; !ok {
			seen[x] = struct{}{}
			out = append(out, x)
		}
	}
	return out
}

// commitCommentRow is a row of commit_comments. author_id carries no
// foreign key, as for events: comments outlive their authors.
type commitCommentRow struct {
	bun.BaseModel `bun:"table:commit_comments,alias:cc"`

	ID        int64     `bun:"id,pk,autoincrement"`
	ProjectID int64     `bun:"project_id"`
	CommitID  string    `bun:"commit_id"`
	AuthorID  int64     `bun:"author_id"`
	Note      string    `bun:"note"`
	Path      *string   `bun:"path"`
	Line      *int      `bun:"line"`
	LineType  *string   `bun:"line_type"`
	CreatedAt time.Time `bun:"created_at"`
}

func (r *commitCommentRow) domain() domain.CommitComment {
	return domain.CommitComment{
		ID:        r.ID,
		ProjectID: r.ProjectID,
		CommitID:  r.CommitID,
		AuthorID:  r.AuthorID,
		Note:      r.Note,
		Path:      r.Path,
		Line:      r.Line,
		LineType:  r.LineType,
		CreatedAt: r.CreatedAt.UTC(),
	}
}

var commitCommentTable = tableOf("Commit Comment", (*commitCommentRow).domain)

type commitCommentStore struct{ s *Store }

// Create stores c; a zero CreatedAt means now. An unknown project is
// core.ErrNotFound.
func (st *commitCommentStore) Create(ctx context.Context, c domain.CommitComment) (domain.CommitComment, error) {
	row := &commitCommentRow{
		ProjectID: c.ProjectID,
		CommitID:  c.CommitID,
		AuthorID:  c.AuthorID,
		Note:      c.Note,
		Path:      c.Path,
		Line:      c.Line,
		LineType:  c.LineType,
		CreatedAt: orNow(c.CreatedAt),
	}
	if err := st.s.insert(ctx, row, parentErr("Project"), "id"); err != nil {
		return domain.CommitComment{}, fmt.Errorf("bunstore: comment on commit %s of project %d: %w", c.CommitID, c.ProjectID, err)
	}
	return row.domain(), nil
}

// List orders by creation, oldest first (ID breaks ties), and costs the
// count and the page.
func (st *commitCommentStore) List(ctx context.Context, projectID int64, commitID string, p domain.Page) ([]domain.CommitComment, int, error) {
	q := st.s.Conn(ctx).NewSelect().
		Where("cc.project_id = ? AND cc.commit_id = ?", projectID, commitID).
		Order("cc.created_at", "cc.id")
	out, n, err := commitCommentTable.page(ctx, q, p)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list comments on commit %s of project %d: %w", commitID, projectID, err)
	}
	return out, n, nil
}

var (
	_ ports.ProtectedBranchStore = (*protectedBranchStore)(nil)
	_ ports.ReleaseStore         = (*releaseStore)(nil)
	_ ports.CommitCommentStore   = (*commitCommentStore)(nil)
)
