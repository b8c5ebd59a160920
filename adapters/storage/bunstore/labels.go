package bunstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// projectLabelRow is a row of labels. Issues and merge requests refer to
// labels by name (issue_labels, merge_request_labels), not by ID.
type projectLabelRow struct {
	bun.BaseModel `bun:"table:labels,alias:lb"`

	ID          int64     `bun:"id,pk,autoincrement"`
	ProjectID   int64     `bun:"project_id"`
	Name        string    `bun:"name"`
	Color       string    `bun:"color"`
	Description string    `bun:"description"`
	CreatedAt   time.Time `bun:"created_at"`
	UpdatedAt   time.Time `bun:"updated_at"`
}

func newProjectLabelRow(l *domain.Label) *projectLabelRow {
	return &projectLabelRow{
		ID:          l.ID,
		ProjectID:   l.ProjectID,
		Name:        l.Name,
		Color:       l.Color,
		Description: l.Description,
		CreatedAt:   ts(l.CreatedAt),
		UpdatedAt:   ts(l.UpdatedAt),
	}
}

func (r *projectLabelRow) domain() domain.Label {
	return domain.Label{
		ID:          r.ID,
		ProjectID:   r.ProjectID,
		Name:        r.Name,
		Color:       r.Color,
		Description: r.Description,
		CreatedAt:   r.CreatedAt.UTC(),
		UpdatedAt:   r.UpdatedAt.UTC(),
	}
}

// labelCarriers are the tables that carry labels by name: the label
// table, its column pointing at the carrier, and the carrier table (whose
// project_id is the label's project).
var labelCarriers = []struct{ table, fk, parent string }{
	{"issue_labels", "issue_id", "issues"},
	{"merge_request_labels", "merge_request_id", "merge_requests"},
}

var labelTable = tableOf("Label", (*projectLabelRow).domain)

type labelStore struct{ s *Store }

// labelErr maps a write error: a unique violation can only be the name.
var labelErr = takenErr("name", func() error { return core.Conflict("Label already exists") }, "Project")

// Create inserts l; zero times are now. An unknown project is
// core.ErrNotFound.
func (st *labelStore) Create(ctx context.Context, l *domain.Label) error {
	l.CreatedAt, l.UpdatedAt = created(l.CreatedAt, l.UpdatedAt)
	row := newProjectLabelRow(l)
	row.ID = 0
	if err := st.s.insert(ctx, row, labelErr, "id"); err != nil {
		return fmt.Errorf("bunstore: create label %q in project %d: %w", l.Name, l.ProjectID, err)
	}
	*l = row.domain()
	return nil
}

// Ensure inserts the names with ON CONFLICT DO NOTHING in one statement,
// so concurrent calls never fail on each other. Empty names are skipped.
func (st *labelStore) Ensure(ctx context.Context, projectID int64, names []string, color string) error {
	t := now()
	rows := []projectLabelRow{}
	for _, n := range dedupeStrings(names) {
		if n != "" {
			rows = append(rows, projectLabelRow{ProjectID: projectID, Name: n, Color: color, CreatedAt: t, UpdatedAt: t})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	_, err := st.s.Conn(ctx).NewInsert().Model(&rows).On("CONFLICT (project_id, name) DO NOTHING").Exec(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: ensure %d labels in project %d: %w", len(rows), projectID, writeErr(err, "Project"))
	}
	return nil
}

func (st *labelStore) GetByName(ctx context.Context, projectID int64, name string) (*domain.Label, error) {
	l, err := labelTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("lb.project_id = ? AND lb.name = ?", projectID, name))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get label %q of project %d: %w", name, projectID, err)
	}
	return l, nil
}

// List sorts by name in byte order (the same on both dialects, whatever
// the collation).
func (st *labelStore) List(ctx context.Context, projectID int64) ([]domain.Label, error) {
	out, err := labelTable.list(ctx, st.s.Conn(ctx).NewSelect().Where("lb.project_id = ?", projectID))
	if err != nil {
		return nil, fmt.Errorf("bunstore: list labels of project %d: %w", projectID, err)
	}
	slices.SortFunc(out, func(a, b domain.Label) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Counts costs two grouped queries: the issues (open and closed, hiding
// the confidential ones viewer may not see) and the open merge requests
// of the project, per label name. Names nothing carries are absent.
func (st *labelStore) Counts(ctx context.Context, projectID int64, viewer domain.IssueViewer) (map[string]domain.LabelCounts, error) {
	db := st.s.Conn(ctx)
	var issues []struct {
		Name   string `bun:"name"`
		Open   int    `bun:"open_issues"`
		Closed int    `bun:"closed_issues"`
	}
	q := db.NewSelect().Model((*issueLabelRow)(nil)).Join("JOIN issues AS i ON i.id = il.issue_id").
		Column("il.name").
		ColumnExpr("sum(CASE WHEN i.state IN (?) THEN 1 ELSE 0 END) AS open_issues", openIssueStates).
		ColumnExpr("sum(CASE WHEN i.state = ? THEN 1 ELSE 0 END) AS closed_issues", domain.IssueClosed).
		Where("i.project_id = ?", projectID)
	if err := whereIssueViewer(q, viewer, "i.").Group("il.name").Scan(ctx, &issues); err != nil {
		return nil, fmt.Errorf("bunstore: count issues by label in project %d: %w", projectID, err)
	}
	var mrs []struct {
		Name string `bun:"name"`
		N    int    `bun:"n"`
	}
	err := db.NewSelect().Model((*labelRow)(nil)).Join("JOIN merge_requests AS mr ON mr.id = l.merge_request_id").
		Column("l.name").ColumnExpr("count(*) AS n").
		Where("mr.project_id = ? AND mr.state IN (?)", projectID, openStates).
		Group("l.name").Scan(ctx, &mrs)
	if err != nil {
		return nil, fmt.Errorf("bunstore: count merge requests by label in project %d: %w", projectID, err)
	}
	out := make(map[string]domain.LabelCounts, len(issues))
	for _, c := range issues {
		out[c.Name] = domain.LabelCounts{OpenIssues: c.Open, ClosedIssues: c.Closed}
	}
	for _, c := range mrs {
		lc := out[c.Name]
		lc.OpenMergeRequests = c.N
		out[c.Name] = lc
	}
	return out, nil
}

// Update locks the row, applies fn and saves it; ID, project and
// CreatedAt stay, UpdatedAt is now unless fn changed it. A new name is
// carried over to the project's issues and merge requests in the same
// transaction. fn's error is returned as is.
func (st *labelStore) Update(ctx context.Context, projectID int64, name string, fn func(l *domain.Label) error) (*domain.Label, error) {
	save := func(ctx context.Context, db bun.IDB, old, l *domain.Label) (*domain.Label, error) {
		l.ID, l.ProjectID, l.CreatedAt = old.ID, old.ProjectID, old.CreatedAt
		l.UpdatedAt = edited(l.UpdatedAt, old.UpdatedAt)
		out, err := labelTable.save(ctx, db, newProjectLabelRow(l), labelErr)
		if err == nil && l.Name != old.Name {
			err = renameLabel(ctx, db, projectID, old.Name, l.Name)
		}
		return out, err
	}
	load := labelTable.locked(st.s, "lb.project_id = ? AND lb.name = ?", projectID, name)
	return modify(ctx, st.s, load, fn, save, func(err error) error {
		return fmt.Errorf("bunstore: update label %q of project %d: %w", name, projectID, err)
	})
}

// renameLabel moves from to to on the project's issues and merge requests.
// A carrier that already has to (names need no label row) just loses from.
func renameLabel(ctx context.Context, db bun.IDB, projectID int64, from, to string) error {
	for _, c := range labelCarriers {
		_, err := db.NewRaw(fmt.Sprintf(`UPDATE %[1]s SET name = ?
WHERE name = ? AND %[2]s IN (SELECT id FROM %[3]s WHERE project_id = ?)
AND NOT EXISTS (SELECT 1 FROM %[1]s AS o WHERE o.%[2]s = %[1]s.%[2]s AND o.name = ?)`, c.table, c.fk, c.parent),
			to, from, projectID, to).Exec(ctx)
		if err != nil {
			return fmt.Errorf("rename in %s: %w", c.table, err)
		}
	}
	return dropLabel(ctx, db, projectID, from)
}

// dropLabel removes name from the project's issues and merge requests.
func dropLabel(ctx context.Context, db bun.IDB, projectID int64, name string) error {
	for _, c := range labelCarriers {
		_, err := db.NewDelete().TableExpr(c.table).
			Where("name = ? AND "+c.fk+" IN (SELECT id FROM "+c.parent+" WHERE project_id = ?)", name, projectID).Exec(ctx)
		if err != nil {
			return fmt.Errorf("remove from %s: %w", c.table, err)
		}
	}
	return nil
}

// Delete removes the label and takes it off the project's issues and merge
// requests in one transaction.
func (st *labelStore) Delete(ctx context.Context, projectID int64, name string) error {
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		if err := labelTable.deleteOne(ctx, db, "project_id = ? AND name = ?", projectID, name); err != nil {
			return err
		}
		return dropLabel(ctx, db, projectID, name)
	})
	if err != nil {
		return fmt.Errorf("bunstore: delete label %q of project %d: %w", name, projectID, err)
	}
	return nil
}

var _ ports.LabelStore = (*labelStore)(nil)
