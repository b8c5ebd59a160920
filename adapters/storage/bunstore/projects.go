package bunstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// projectRow is a row of projects. tag_list is a JSON array of strings.
// star_count and forks_count are counters moved only by single UPDATE
// statements (Star, Unstar, AddForks), never written back by Update.
type projectRow struct {
	bun.BaseModel `bun:"table:projects,alias:p"`

	ID                                        int64     `bun:"id,pk,autoincrement"`
	NamespaceID                               int64     `bun:"namespace_id"`
	Name                                      string    `bun:"name"`
	Path                                      string    `bun:"path"`
	Description                               string    `bun:"description"`
	DefaultBranch                             string    `bun:"default_branch"`
	Visibility                                string    `bun:"visibility"`
	IssuesEnabled                             bool      `bun:"issues_enabled"`
	MergeRequestsEnabled                      bool      `bun:"merge_requests_enabled"`
	JobsEnabled                               bool      `bun:"jobs_enabled"`
	WikiEnabled                               bool      `bun:"wiki_enabled"`
	SnippetsEnabled                           bool      `bun:"snippets_enabled"`
	ContainerRegistryEnabled                  bool      `bun:"container_registry_enabled"`
	SharedRunnersEnabled                      bool      `bun:"shared_runners_enabled"`
	PublicJobs                                bool      `bun:"public_jobs"`
	OnlyAllowMergeIfPipelineSucceeds          bool      `bun:"only_allow_merge_if_pipeline_succeeds"`
	OnlyAllowMergeIfAllDiscussionsAreResolved bool      `bun:"only_allow_merge_if_all_discussions_are_resolved"`
	LFSEnabled                                bool      `bun:"lfs_enabled"`
	RequestAccessEnabled                      bool      `bun:"request_access_enabled"`
	PrintingMergeRequestLinkEnabled           bool      `bun:"printing_merge_request_link_enabled"`
	Archived                                  bool      `bun:"archived"`
	CreatorID                                 int64     `bun:"creator_id"`
	ForkedFromID                              *int64    `bun:"forked_from_id"`
	ImportURL                                 string    `bun:"import_url"`
	ImportStatus                              string    `bun:"import_status"`
	ImportError                               string    `bun:"import_error"`
	StarCount                                 int       `bun:"star_count"`
	ForksCount                                int       `bun:"forks_count"`
	OpenIssuesCount                           int       `bun:"open_issues_count"`
	TagList                                   string    `bun:"tag_list"`
	CIConfigPath                              string    `bun:"ci_config_path"`
	AvatarURL                                 string    `bun:"avatar_url"`
	CreatedAt                                 time.Time `bun:"created_at"`
	UpdatedAt                                 time.Time `bun:"updated_at"`
	LastActivityAt                            time.Time `bun:"last_activity_at"`
}

func newProjectRow(p *domain.Project) *projectRow {
	tags := "[]"
	if len(p.TagList) > 0 {
		b, _ := json.Marshal(p.TagList) // []string always marshals
		tags = string(b)
	}
	return &projectRow{
		ID:                               p.ID,
		NamespaceID:                      p.NamespaceID,
		Name:                             p.Name,
		Path:                             p.Path,
		Description:                      p.Description,
		DefaultBranch:                    p.DefaultBranch,
		Visibility:                       string(p.Visibility),
		IssuesEnabled:                    p.IssuesEnabled,
		MergeRequestsEnabled:             p.MergeRequestsEnabled,
		JobsEnabled:                      p.JobsEnabled,
		WikiEnabled:                      p.WikiEnabled,
		SnippetsEnabled:                  p.SnippetsEnabled,
		ContainerRegistryEnabled:         p.ContainerRegistryEnabled,
		SharedRunnersEnabled:             p.SharedRunnersEnabled,
		PublicJobs:                       p.PublicJobs,
		OnlyAllowMergeIfPipelineSucceeds: p.OnlyAllowMergeIfPipelineSucceeds,
		OnlyAllowMergeIfAllDiscussionsAreResolved: p.OnlyAllowMergeIfAllDiscussionsAreResolved,
		LFSEnabled:                      p.LFSEnabled,
		RequestAccessEnabled:            p.RequestAccessEnabled,
		PrintingMergeRequestLinkEnabled: p.PrintingMergeRequestLinkEnabled,
		Archived:                        p.Archived,
		CreatorID:                       p.CreatorID,
		ForkedFromID:                    p.ForkedFromID,
		ImportURL:                       p.ImportURL,
		ImportStatus:                    p.ImportStatus,
		ImportError:                     p.ImportError,
		StarCount:                       p.StarCount,
		ForksCount:                      p.ForksCount,
		OpenIssuesCount:                 p.OpenIssuesCount,
		TagList:                         tags,
		CIConfigPath:                    p.CIConfigPath,
		AvatarURL:                       p.AvatarURL,
		CreatedAt:                       ts(p.CreatedAt),
		UpdatedAt:                       ts(p.UpdatedAt),
		LastActivityAt:                  ts(p.LastActivityAt),
	}
}

func (r *projectRow) domain() domain.Project {
	var tags []string
	if r.TagList != "" && r.TagList != "[]" {
		_ = json.Unmarshal([]byte(r.TagList), &tags) // written by newProjectRow
	}
	return domain.Project{
		ID:                               r.ID,
		NamespaceID:                      r.NamespaceID,
		Name:                             r.Name,
		Path:                             r.Path,
		Description:                      r.Description,
		DefaultBranch:                    r.DefaultBranch,
		Visibility:                       domain.Visibility(r.Visibility),
		IssuesEnabled:                    r.IssuesEnabled,
		MergeRequestsEnabled:             r.MergeRequestsEnabled,
		JobsEnabled:                      r.JobsEnabled,
		WikiEnabled:                      r.WikiEnabled,
		SnippetsEnabled:                  r.SnippetsEnabled,
		ContainerRegistryEnabled:         r.ContainerRegistryEnabled,
		SharedRunnersEnabled:             r.SharedRunnersEnabled,
		PublicJobs:                       r.PublicJobs,
		OnlyAllowMergeIfPipelineSucceeds: r.OnlyAllowMergeIfPipelineSucceeds,
		OnlyAllowMergeIfAllDiscussionsAreResolved: r.OnlyAllowMergeIfAllDiscussionsAreResolved,
		LFSEnabled:                      r.LFSEnabled,
		RequestAccessEnabled:            r.RequestAccessEnabled,
		PrintingMergeRequestLinkEnabled: r.PrintingMergeRequestLinkEnabled,
		Archived:                        r.Archived,
		CreatorID:                       r.CreatorID,
		ForkedFromID:                    r.ForkedFromID,
		ImportURL:                       r.ImportURL,
		ImportStatus:                    r.ImportStatus,
		ImportError:                     r.ImportError,
		StarCount:                       r.StarCount,
		ForksCount:                      r.ForksCount,
		OpenIssuesCount:                 r.OpenIssuesCount,
		TagList:                         tags,
		CIConfigPath:                    r.CIConfigPath,
		AvatarURL:                       r.AvatarURL,
		CreatedAt:                       r.CreatedAt.UTC(),
		UpdatedAt:                       r.UpdatedAt.UTC(),
		LastActivityAt:                  r.LastActivityAt.UTC(),
	}
}

var projectTable = tableOf("Project", (*projectRow).domain)

// starRow is a row of project_stars.
type starRow struct {
	bun.BaseModel `bun:"table:project_stars,alias:st"`

	UserID    int64     `bun:"user_id,pk"`
	ProjectID int64     `bun:"project_id,pk"`
	CreatedAt time.Time `bun:"created_at"`
}

type projectStore struct{ s *Store }

// projectOrders maps the orderings of project lists to columns.
var projectOrders = map[domain.ProjectOrder]string{
	"":                           "p.created_at",
	domain.OrderByID:             "p.id",
	domain.OrderByName:           "p.name",
	domain.OrderByPath:           "p.path",
	domain.OrderByCreatedAt:      "p.created_at",
	domain.OrderByUpdatedAt:      "p.updated_at",
	domain.OrderByLastActivityAt: "p.last_activity_at",
}

// Create inserts p. Zero CreatedAt means now; zero UpdatedAt and
// LastActivityAt mean CreatedAt; an empty ImportStatus is "none"; the
// counters start at 0 (stars and forks move only through Star and AddForks).
// An unknown namespace (or fork source) is core.ErrNotFound.
func (st *projectStore) Create(ctx context.Context, p *domain.Project) error {
	p.CreatedAt, p.UpdatedAt = created(p.CreatedAt, p.UpdatedAt)
	if p.LastActivityAt.IsZero() {
		p.LastActivityAt = p.CreatedAt
	}
	if p.ImportStatus == "" {
		p.ImportStatus = domain.ImportNone
	}
	row := newProjectRow(p)
	row.ID, row.StarCount, row.ForksCount = 0, 0, 0
	if err := st.s.insert(ctx, row, nil, "id"); err != nil {
		return fmt.Errorf("bunstore: create project %q: %w", p.Path, st.writeErr(ctx, err, row, 0))
	}
	*p = row.domain()
	return nil
}

// writeErr maps an insert or update error of row. A unique violation is
// reported with every field that is taken (name, path or both), looked up
// once the failed statement is rolled back; a foreign-key violation is an
// unknown namespace or fork source.
func (st *projectStore) writeErr(ctx context.Context, err error, row *projectRow, except int64) error {
	detail, ok := uniqueViolation(err)
	if !ok {
		if foreignKeyViolation(err) {
			return core.NotFound("Namespace")
		}
		return err
	}
	var name, path int
	qerr := st.s.Conn(ctx).NewSelect().Model((*projectRow)(nil)).
		ColumnExpr("coalesce(max(CASE WHEN lower(p.name) = lower(?) THEN 1 ELSE 0 END), 0)", row.Name).
		ColumnExpr("coalesce(max(CASE WHEN lower(p.path) = lower(?) THEN 1 ELSE 0 END), 0)", row.Path).
		Where("p.namespace_id = ? AND p.id <> ?", row.NamespaceID, except).
		Scan(ctx, &name, &path)
	if qerr != nil || name+path == 0 {
		// The other row went away in between: report the index that failed.
		return conflict(detail)
	}
	fields := map[string][]string{}
	var msgs []string
	if name > 0 {
		fields["name"] = []string{"has already been taken"}
		msgs = append(msgs, "Name has already been taken")
	}
	if path > 0 {
		fields["path"] = []string{"has already been taken"}
		msgs = append(msgs, "Path has already been taken")
	}
	return &core.Error{Kind: core.ErrConflict, Msg: strings.Join(msgs, ", "), Fields: fields}
}

func (st *projectStore) Get(ctx context.Context, id int64) (*domain.Project, error) {
	p, err := projectTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("p.id = ?", id))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get project %d: %w", id, err)
	}
	return p, nil
}

// GetByFullPath splits at the last slash into the namespace's full path and
// the project's path and matches both case-insensitively in one query.
func (st *projectStore) GetByFullPath(ctx context.Context, fullPath string) (*domain.Project, error) {
	i := strings.LastIndex(fullPath, "/")
	if i <= 0 || i == len(fullPath)-1 || unstorable(fullPath) {
		return nil, fmt.Errorf("bunstore: get project %q: %w", fullPath, core.NotFound("Project"))
	}
	p, err := projectTable.get(ctx, st.s.Conn(ctx).NewSelect().
		Join("JOIN namespaces AS n ON n.id = p.namespace_id").
		Where("lower(n.full_path) = lower(?) AND lower(p.path) = lower(?)", fullPath[:i], fullPath[i+1:]).
		Limit(1))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get project %q: %w", fullPath, err)
	}
	return p, nil
}

// GetMany orders by ID; unknown IDs are skipped.
func (st *projectStore) GetMany(ctx context.Context, ids []int64) ([]domain.Project, error) {
	out, err := projectTable.byIDs(ctx, st.s.Conn(ctx), "p.id", ids)
	if err != nil {
		return nil, fmt.Errorf("bunstore: get %d projects: %w", len(ids), err)
	}
	return out, nil
}

// Update locks the row, applies fn and saves every column but the counters
// StarCount and ForksCount, which fn cannot change. UpdatedAt becomes now
// unless fn sets it. core.ErrNotFound when absent; fn's error is returned as is.
func (st *projectStore) Update(ctx context.Context, id int64, fn func(p *domain.Project) error) (*domain.Project, error) {
	save := func(ctx context.Context, db bun.IDB, old, p *domain.Project) (*domain.Project, error) {
		p.ID, p.StarCount, p.ForksCount = id, old.StarCount, old.ForksCount
		p.UpdatedAt = edited(p.UpdatedAt, old.UpdatedAt)
		row := newProjectRow(p)
		err := st.s.guarded(ctx, func(ctx context.Context, db bun.IDB) error {
			_, err := db.NewUpdate().Model(row).ExcludeColumn("star_count", "forks_count").WherePK().Exec(ctx)
			return err
		})
		if err != nil {
			return nil, st.writeErr(ctx, err, row, id)
		}
		out := row.domain()
		return &out, nil
	}
	return modify(ctx, st.s, projectTable.locked(st.s, "p.id = ?", id), fn, save, func(err error) error {
		return fmt.Errorf("bunstore: update project %d: %w", id, err)
	})
}

// deleteProjectLeftovers removes what points into a project's issues,
// merge requests, snippets and notes without a foreign key (awards and
// subscriptions are polymorphic), before the cascade removes those.
func deleteProjectLeftovers(ctx context.Context, db bun.IDB, projectID int64) error {
	owned := map[string]string{
		domain.TargetIssue:        "SELECT id FROM issues WHERE project_id = ?",
		domain.TargetMergeRequest: "SELECT id FROM merge_requests WHERE project_id = ?",
		domain.TargetSnippet:      "SELECT id FROM snippets WHERE project_id = ?",
		domain.TargetNote:         "SELECT id FROM notes WHERE project_id = ?",
	}
	for typ, ids := range owned {
		if _, err := db.NewDelete().TableExpr("award_emoji").
			Where("awardable_type = ? AND awardable_id IN ("+ids+")", typ, projectID).Exec(ctx); err != nil {
			return fmt.Errorf("awards of %s: %w", typ, err)
		}
		if typ != domain.TargetIssue && typ != domain.TargetMergeRequest {
			continue
		}
		if _, err := db.NewDelete().TableExpr("subscriptions").
			Where("subject_type = ? AND subject_id IN ("+ids+")", typ, projectID).Exec(ctx); err != nil {
			return fmt.Errorf("subscriptions of %s: %w", typ, err)
		}
	}
	return nil
}

// Delete removes the project and its memberships in one transaction; shares
// and stars go by ON DELETE CASCADE, and forks keep existing with
// ForkedFromID cleared. core.ErrNotFound when absent.
func (st *projectStore) Delete(ctx context.Context, id int64) error {
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		if err := deleteProjectLeftovers(ctx, db, id); err != nil {
			return err
		}
		if err := projectTable.deleteOne(ctx, db, "id = ?", id); err != nil {
			return err
		}
		_, err := db.NewDelete().Model((*memberRow)(nil)).
			Where("source = ? AND source_id = ?", string(domain.MemberOfProject), id).Exec(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("bunstore: delete project %d: %w", id, err)
	}
	return nil
}

// List applies f.Readable and every other filter in the SQL, and costs two
// queries (the count, then the page) whatever the page size. An unknown
// OrderBy is core.ErrInvalid.
func (st *projectStore) List(ctx context.Context, f domain.ProjectFilter) ([]domain.Project, int, error) {
	col, ok := projectOrders[f.OrderBy]
	if !ok {
		return nil, 0, fmt.Errorf("bunstore: list projects: %w", core.InvalidParam("order_by"))
	}
	if f.OnlyIDsSet && len(f.OnlyIDs) == 0 {
		return []domain.Project{}, 0, nil
	}
	q := whereReadable(st.s.Conn(ctx).NewSelect(), f.Readable, "p.")
	if len(f.NamespaceIDs) > 0 {
		q = q.Where("p.namespace_id IN (?)", bun.List(dedupeIDs(f.NamespaceIDs)))
	}
	if len(f.OnlyIDs) > 0 {
		q = q.Where("p.id IN (?)", bun.List(dedupeIDs(f.OnlyIDs)))
	}
	q = whereSet(q, "p.id IN (SELECT project_id FROM project_stars WHERE user_id = ?)", f.StarredBy)
	if f.Archived != nil {
		q = q.Where("p.archived = ?", *f.Archived)
	}
	q = whereSet(q, "p.visibility = ?", string(f.Visibility))
	q = whereContains(q, f.Search, "p.name", "p.path", "p.description")
	if f.WithIssuesEnabled {
		q = q.Where("p.issues_enabled = ?", true)
	}
	if f.WithMergeRequestsEnabled {
		q = q.Where("p.merge_requests_enabled = ?", true)
	}
	if col == "p.id" {
		q = q.OrderExpr(orderBy(f.Ascending, col))
	} else {
		q = q.OrderExpr(orderBy(f.Ascending, col, "p.id"))
	}
	out, n, err := projectTable.page(ctx, q, f.Page)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list projects: %w", err)
	}
	return out, n, nil
}

func (st *projectStore) CountInNamespace(ctx context.Context, namespaceID int64) (int, error) {
	n, err := st.s.Conn(ctx).NewSelect().Model((*projectRow)(nil)).Where("p.namespace_id = ?", namespaceID).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("bunstore: count projects in namespace %d: %w", namespaceID, err)
	}
	return int(n), nil
}

// errNoStarParent marks a star whose user or project does not exist; which
// one is found out after the transaction rolled back.
var errNoStarParent = errors.New("unknown user or project")

// Star inserts the star (ON CONFLICT DO NOTHING) and, only when a row was
// inserted, moves star_count with one UPDATE in the same transaction, so
// the count is exact under any concurrency. An unknown project or user is
// core.ErrNotFound.
func (st *projectStore) Star(ctx context.Context, userID, projectID int64) (bool, error) {
	var starred bool
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		res, err := db.NewInsert().Model(&starRow{UserID: userID, ProjectID: projectID, CreatedAt: now()}).
			On("CONFLICT DO NOTHING").Exec(ctx)
		if foreignKeyViolation(err) {
			return errNoStarParent
		}
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		starred = true
		return st.addStars(ctx, db, projectID, 1)
	})
	if errors.Is(err, errNoStarParent) {
		err = core.NotFound("User")
		if _, perr := st.Get(ctx, projectID); perr != nil {
			err = perr
		}
	}
	if err != nil {
		return false, fmt.Errorf("bunstore: star project %d for user %d: %w", projectID, userID, err)
	}
	return starred, nil
}

// Unstar deletes the star and, only when a row went, moves star_count back
// in the same transaction.
func (st *projectStore) Unstar(ctx context.Context, userID, projectID int64) (bool, error) {
	var unstarred bool
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		res, err := db.NewDelete().Model((*starRow)(nil)).Where("user_id = ? AND project_id = ?", userID, projectID).Exec(ctx)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		unstarred = true
		return st.addStars(ctx, db, projectID, -1)
	})
	if err != nil {
		return false, fmt.Errorf("bunstore: unstar project %d for user %d: %w", projectID, userID, err)
	}
	return unstarred, nil
}

func (st *projectStore) addStars(ctx context.Context, db bun.IDB, projectID int64, delta int) error {
	_, err := db.NewUpdate().Model((*projectRow)(nil)).Set("star_count = star_count + ?", delta).Where("id = ?", projectID).Exec(ctx)
	return err
}

// AddForks moves forks_count by delta in one statement (never below 0).
func (st *projectStore) AddForks(ctx context.Context, projectID int64, delta int) error {
	res, err := st.s.Conn(ctx).NewUpdate().Model((*projectRow)(nil)).
		Set("forks_count = CASE WHEN forks_count + ? < 0 THEN 0 ELSE forks_count + ? END", delta, delta).
		Where("id = ?", projectID).Exec(ctx)
	if err == nil {
		err = mustAffect(res, "Project")
	}
	if err != nil {
		return fmt.Errorf("bunstore: add %d forks to project %d: %w", delta, projectID, err)
	}
	return nil
}

// Starred maps every starred project among projectIDs to true (the others
// are absent, so they read as false).
func (st *projectStore) Starred(ctx context.Context, userID int64, projectIDs []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	if len(projectIDs) == 0 {
		return out, nil
	}
	var ids []int64
	err := st.s.Conn(ctx).NewSelect().Model((*starRow)(nil)).Column("project_id").
		Where("user_id = ? AND project_id IN (?)", userID, bun.List(dedupeIDs(projectIDs))).Scan(ctx, &ids)
	if err != nil {
		return nil, fmt.Errorf("bunstore: stars of user %d: %w", userID, err)
	}
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

// PendingImports orders by ID.
func (st *projectStore) PendingImports(ctx context.Context) ([]domain.Project, error) {
	out, err := projectTable.list(ctx, st.s.Conn(ctx).NewSelect().
		Where("p.import_status IN (?)", bun.List([]string{domain.ImportScheduled, domain.ImportStarted})).
		Order("p.id"))
	if err != nil {
		return nil, fmt.Errorf("bunstore: pending imports: %w", err)
	}
	return out, nil
}

// Forks orders by ID.
func (st *projectStore) Forks(ctx context.Context, projectID int64) ([]int64, error) {
	out := []int64{}
	err := st.s.Conn(ctx).NewSelect().Model((*projectRow)(nil)).Column("id").
		Where("p.forked_from_id = ?", projectID).Order("p.id").Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("bunstore: forks of project %d: %w", projectID, err)
	}
	return out, nil
}

var _ ports.ProjectStore = (*projectStore)(nil)

// TouchActivity moves last_activity_at forward only, in one statement when
// it moves; a second one tells a missing project from a later activity.
func (st *projectStore) TouchActivity(ctx context.Context, id int64, at time.Time) error {
	t := ts(at)
	db := st.s.Conn(ctx)
	q := db.NewUpdate().Set("last_activity_at = ?", t).Where("id = ? AND last_activity_at < ?", id, t)
	if err := projectTable.moveForward(ctx, db, q, id); err != nil {
		return fmt.Errorf("bunstore: touch activity of project %d: %w", id, err)
	}
	return nil
}
