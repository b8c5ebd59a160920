package bunstore

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// The award names that count as votes.
const (
	awardUpvote   = "thumbsup"
	awardDownvote = "thumbsdown"
)

// issueRow is a row of issues. Labels live in issue_labels; the notes
// count and the votes are computed by every read (scanonly: never written).
type issueRow struct {
	bun.BaseModel `bun:"table:issues,alias:i"`

	ID           int64      `bun:"id,pk,autoincrement"`
	IID          int64      `bun:"iid"`
	ProjectID    int64      `bun:"project_id"`
	Title        string     `bun:"title"`
	Description  string     `bun:"description"`
	State        string     `bun:"state"`
	AuthorID     int64      `bun:"author_id"`
	AssigneeID   *int64     `bun:"assignee_id"`
	MilestoneID  *int64     `bun:"milestone_id"`
	Confidential bool       `bun:"confidential"`
	DueDate      *time.Time `bun:"due_date"`
	CreatedAt    time.Time  `bun:"created_at"`
	UpdatedAt    time.Time  `bun:"updated_at"`
	ClosedAt     *time.Time `bun:"closed_at"`

	UserNotesCount int `bun:"user_notes_count,scanonly"`
	Upvotes        int `bun:"upvotes,scanonly"`
	Downvotes      int `bun:"downvotes,scanonly"`
}

func newIssueRow(i *domain.Issue) *issueRow {
	return &issueRow{
		ID:           i.ID,
		IID:          i.IID,
		ProjectID:    i.ProjectID,
		Title:        i.Title,
		Description:  i.Description,
		State:        i.State,
		AuthorID:     i.AuthorID,
		AssigneeID:   i.AssigneeID,
		MilestoneID:  i.MilestoneID,
		Confidential: i.Confidential,
		DueDate:      datePtr(i.DueDate),
		CreatedAt:    ts(i.CreatedAt),
		UpdatedAt:    ts(i.UpdatedAt),
		ClosedAt:     tsPtr(i.ClosedAt),
	}
}

func (r *issueRow) domain(labels []string) domain.Issue {
	return domain.Issue{
		ID:             r.ID,
		IID:            r.IID,
		ProjectID:      r.ProjectID,
		Title:          r.Title,
		Description:    r.Description,
		State:          r.State,
		AuthorID:       r.AuthorID,
		AssigneeID:     r.AssigneeID,
		MilestoneID:    r.MilestoneID,
		Labels:         labels,
		Confidential:   r.Confidential,
		DueDate:        utcPtr(r.DueDate),
		UserNotesCount: r.UserNotesCount,
		Upvotes:        r.Upvotes,
		Downvotes:      r.Downvotes,
		CreatedAt:      r.CreatedAt.UTC(),
		UpdatedAt:      r.UpdatedAt.UTC(),
		ClosedAt:       utcPtr(r.ClosedAt),
	}
}

// issueLabelRow is a row of issue_labels.
type issueLabelRow struct {
	bun.BaseModel `bun:"table:issue_labels,alias:il"`

	IssueID int64  `bun:"issue_id,pk"`
	Name    string `bun:"name,pk"`
}

// openIssueStates are the states counted as open.
var openIssueStates = bun.List([]string{domain.IssueOpened, domain.IssueReopened})

type issueStore struct{ s *Store }

// query selects issues into dest with the notes count and the votes
// computed by correlated subqueries over notes_noteable_idx and
// award_emoji_awardable_idx: one query for any page.
func (st *issueStore) query(db bun.IDB, dest any) *bun.SelectQuery {
	return db.NewSelect().Model(dest).ColumnExpr("i.*").
		ColumnExpr("(SELECT count(*) FROM notes AS n WHERE n.noteable_type = ? AND n.noteable_id = i.id AND n.system = ?) AS user_notes_count",
			domain.TargetIssue, false).
		ColumnExpr("(SELECT count(*) FROM award_emoji AS a WHERE a.awardable_type = ? AND a.awardable_id = i.id AND a.name = ?) AS upvotes",
			domain.TargetIssue, awardUpvote).
		ColumnExpr("(SELECT count(*) FROM award_emoji AS a WHERE a.awardable_type = ? AND a.awardable_id = i.id AND a.name = ?) AS downvotes",
			domain.TargetIssue, awardDownvote)
}

// whereIssueViewer hides the confidential issues v may not see; col
// prefixes the issue columns ("i.").
func whereIssueViewer(q *bun.SelectQuery, v domain.IssueViewer, col string) *bun.SelectQuery {
	if v.All {
		return q
	}
	return q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
		q = q.WhereOr(col+"confidential = ?", false)
		if v.UserID != 0 {
			q = q.WhereOr(col+"author_id = ?", v.UserID).WhereOr(col+"assignee_id = ?", v.UserID)
		}
		if len(v.ProjectIDs) > 0 {
			q = q.WhereOr(col+"project_id IN (?)", bun.List(dedupeIDs(v.ProjectIDs)))
		}
		if len(v.NamespaceIDs) > 0 {
			q = q.WhereOr(col+"project_id IN (SELECT pv.id FROM projects AS pv WHERE pv.namespace_id IN (?))", bun.List(dedupeIDs(v.NamespaceIDs)))
		}
		return q
	})
}

// Create takes the next IID from the project's counter row and inserts the
// issue and its labels in one transaction, so concurrent creates queue on
// the counter and a failed insert gives its IID back. An empty State is
// opened; a zero UpdatedAt is CreatedAt. An unknown assignee is
// core.ErrNotFound ("User").
func (st *issueStore) Create(ctx context.Context, i *domain.Issue) error {
	if i.State == "" {
		i.State = domain.IssueOpened
	}
	i.CreatedAt = orNow(i.CreatedAt)
	if i.UpdatedAt.IsZero() {
		i.UpdatedAt = i.CreatedAt
	}
	labels := normLabels(i.Labels)
	row := newIssueRow(i)
	row.ID = 0
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		if err := db.NewRaw(`INSERT INTO issue_iids (project_id, last_iid) VALUES (?, 1)
ON CONFLICT (project_id) DO UPDATE SET last_iid = issue_iids.last_iid + 1
RETURNING last_iid`, i.ProjectID).Scan(ctx, &row.IID); err != nil {
			return writeErr(err, "Project")
		}
		if _, err := db.NewInsert().Model(row).Returning("id").Exec(ctx); err != nil {
			return writeErr(err, "User")
		}
		return issueLabelLinks.insert(ctx, db, row.ID, labels)
	})
	if err != nil {
		return fmt.Errorf("bunstore: create issue in project %d: %w", i.ProjectID, err)
	}
	*i = row.domain(labels)
	return nil
}

func (st *issueStore) Get(ctx context.Context, projectID, iid int64) (*domain.Issue, error) {
	i, err := st.one(ctx, st.s.Conn(ctx), false, projectID, iid)
	if err != nil {
		return nil, fmt.Errorf("bunstore: get issue #%d of project %d: %w", iid, projectID, err)
	}
	return i, nil
}

// one reads an issue with its labels; lock takes the row lock when the
// store uses them.
func (st *issueStore) one(ctx context.Context, db bun.IDB, lock bool, projectID, iid int64) (*domain.Issue, error) {
	row := new(issueRow)
	q := st.query(db, row).Where("i.project_id = ? AND i.iid = ?", projectID, iid)
	if lock && st.s.rowLocks {
		q = q.For("NO KEY UPDATE OF i")
	}
	if err := q.Scan(ctx); err != nil {
		return nil, readErr(err, "Issue")
	}
	labels, err := issueLabelLinks.load(ctx, db, []int64{row.ID})
	if err != nil {
		return nil, err
	}
	i := row.domain(labels[row.ID])
	return &i, nil
}

// GetMany orders by ID; unknown IDs are skipped.
func (st *issueStore) GetMany(ctx context.Context, ids []int64) ([]domain.Issue, error) {
	if len(ids) == 0 {
		return []domain.Issue{}, nil
	}
	out, err := st.where(ctx, "i.id IN (?)", bun.List(dedupeIDs(ids)))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get %d issues: %w", len(ids), err)
	}
	return out, nil
}

// ByIIDs orders by IID; unknown IIDs are skipped.
func (st *issueStore) ByIIDs(ctx context.Context, projectID int64, iids []int64) ([]domain.Issue, error) {
	if len(iids) == 0 {
		return []domain.Issue{}, nil
	}
	out, err := st.where(ctx, "i.project_id = ? AND i.iid IN (?)", projectID, bun.List(dedupeIDs(iids)))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get %d issues of project %d: %w", len(iids), projectID, err)
	}
	return out, nil
}

// where reads the issues matching one condition, ordered by ID.
func (st *issueStore) where(ctx context.Context, cond string, args ...any) ([]domain.Issue, error) {
	db := st.s.Conn(ctx)
	rows := []issueRow{}
	if err := st.query(db, &rows).Where(cond, args...).Order("i.id").Scan(ctx); err != nil {
		return nil, err
	}
	return withIssueLabels(ctx, db, rows)
}

// withIssueLabels converts rows, loading the labels of all of them in one
// query.
func withIssueLabels(ctx context.Context, db bun.IDB, rows []issueRow) ([]domain.Issue, error) {
	out := make([]domain.Issue, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	ids := make([]int64, len(rows))
	for i := range rows {
		ids[i] = rows[i].ID
	}
	labels, err := issueLabelLinks.load(ctx, db, ids)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		out[i] = rows[i].domain(labels[rows[i].ID])
	}
	return out, nil
}

// deleteIssuableDependents removes what hangs on an issue or merge
// request without a foreign key to it: its notes and their awards, its
// awards, todos and subscriptions.
func deleteIssuableDependents(ctx context.Context, db bun.IDB, typ string, id int64) error {
	notes := db.NewSelect().Model((*noteRow)(nil)).Column("n.id").
		Where("n.noteable_type = ? AND n.noteable_id = ?", typ, id)
	for _, q := range []*bun.DeleteQuery{
		db.NewDelete().TableExpr("award_emoji").Where("awardable_type = ? AND awardable_id IN (?)", domain.TargetNote, notes),
		db.NewDelete().TableExpr("award_emoji").Where("awardable_type = ? AND awardable_id = ?", typ, id),
		db.NewDelete().Model((*noteRow)(nil)).Where("noteable_type = ? AND noteable_id = ?", typ, id),
		db.NewDelete().Model((*todoRow)(nil)).Where("target_type = ? AND target_id = ?", typ, id),
		db.NewDelete().Model((*subscriptionRow)(nil)).Where("subject_type = ? AND subject_id = ?", typ, id),
	} {
		if _, err := q.Exec(ctx); err != nil {
			return fmt.Errorf("delete what hangs on %s %d: %w", typ, id, err)
		}
	}
	return nil
}

// Update locks the row, applies fn and saves every column, replacing the
// labels when they changed. ID, IID and the project stay; the notes count
// and the votes are read-only.
func (st *issueStore) Update(ctx context.Context, projectID, iid int64, fn func(i *domain.Issue) error) (*domain.Issue, error) {
	var out domain.Issue
	var fnErr error
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		old, err := st.one(ctx, db, true, projectID, iid)
		if err != nil {
			return err
		}
		i := *old
		i.Labels = slices.Clone(old.Labels)
		if fnErr = fn(&i); fnErr != nil {
			return fnErr
		}
		i.ID, i.IID, i.ProjectID = old.ID, old.IID, old.ProjectID
		i.UserNotesCount, i.Upvotes, i.Downvotes = old.UserNotesCount, old.Upvotes, old.Downvotes
		if i.UpdatedAt.Equal(old.UpdatedAt) {
			i.UpdatedAt = now()
		}
		labels := normLabels(i.Labels)
		row := newIssueRow(&i)
		row.UserNotesCount, row.Upvotes, row.Downvotes = i.UserNotesCount, i.Upvotes, i.Downvotes
		if _, err := db.NewUpdate().Model(row).WherePK().Exec(ctx); err != nil {
			return writeErr(err, "User")
		}
		if !slices.Equal(labels, old.Labels) {
			if err := issueLabelLinks.replace(ctx, db, row.ID, labels); err != nil {
				return err
			}
		}
		out = row.domain(labels)
		return nil
	})
	if fnErr != nil {
		return nil, fnErr
	}
	if err != nil {
		return nil, fmt.Errorf("bunstore: update issue #%d of project %d: %w", iid, projectID, err)
	}
	return &out, nil
}

// Delete removes the issue in one transaction with what has no foreign key
// to it: its notes (and their awards), awards, todos and subscriptions.
// Its labels go by ON DELETE CASCADE.
func (st *issueStore) Delete(ctx context.Context, projectID, iid int64) error {
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		var id int64
		if err := db.NewSelect().Model((*issueRow)(nil)).Column("i.id").
			Where("i.project_id = ? AND i.iid = ?", projectID, iid).Scan(ctx, &id); err != nil {
			return readErr(err, "Issue")
		}
		if err := deleteIssuableDependents(ctx, db, domain.TargetIssue, id); err != nil {
			return err
		}
		res, err := db.NewDelete().Model((*issueRow)(nil)).Where("id = ?", id).Exec(ctx)
		if err != nil {
			return err
		}
		return mustAffect(res, "Issue")
	})
	if err != nil {
		return fmt.Errorf("bunstore: delete issue #%d of project %d: %w", iid, projectID, err)
	}
	return nil
}

// issueOrders maps OrderBy to its column; ID breaks ties.
var issueOrders = map[string]string{
	"":           "i.created_at",
	"created_at": "i.created_at",
	"updated_at": "i.updated_at",
}

// List applies every filter of f in the SQL and costs three queries (the
// count, the page, its labels) whatever the page size. Without a project
// it joins projects for the read scope and issues_enabled. The opened
// state includes reopened. An unknown OrderBy is core.ErrInvalid.
func (st *issueStore) List(ctx context.Context, f domain.IssueFilter) ([]domain.Issue, int, error) {
	col, ok := issueOrders[f.OrderBy]
	if !ok {
		return nil, 0, fmt.Errorf("bunstore: list issues: %w", core.InvalidParam("order_by"))
	}
	db := st.s.Conn(ctx)
	rows := []issueRow{}
	q := st.query(db, &rows)
	if f.ProjectID != 0 {
		q = q.Where("i.project_id = ?", f.ProjectID)
	} else {
		q = q.Join("JOIN projects AS p ON p.id = i.project_id").Where("p.issues_enabled = ?", true)
		q = whereReadable(q, f.Readable, "p.")
	}
	q = whereIssueViewer(q, f.Viewer, "i.")
	if len(f.IIDs) > 0 {
		q = q.Where("i.iid IN (?)", bun.List(dedupeIDs(f.IIDs)))
	}
	if len(f.States) > 0 {
		states := slices.Clone(f.States)
		if slices.Contains(states, domain.IssueOpened) {
			states = append(states, domain.IssueReopened)
		}
		q = q.Where("i.state IN (?)", bun.List(dedupeStrings(states)))
	}
	if f.AuthorID != 0 {
		q = q.Where("i.author_id = ?", f.AuthorID)
	}
	if f.AssigneeID != 0 {
		q = q.Where("i.assignee_id = ?", f.AssigneeID)
	}
	if len(f.MilestoneIDs) > 0 {
		q = q.Where("i.milestone_id IN (?)", bun.List(dedupeIDs(f.MilestoneIDs)))
	}
	if f.NoMilestone {
		q = q.Where("i.milestone_id IS NULL")
	}
	for _, l := range dedupeStrings(f.Labels) {
		q = q.Where("EXISTS (SELECT 1 FROM issue_labels AS il WHERE il.issue_id = i.id AND il.name = ?)", l)
	}
	if f.NoLabels {
		q = q.Where("NOT EXISTS (SELECT 1 FROM issue_labels AS il WHERE il.issue_id = i.id)")
	}
	if f.Search != "" {
		pat := containsPattern(f.Search)
		q = q.Where(`(lower(i.title) LIKE ? ESCAPE '\' OR lower(i.description) LIKE ? ESCAPE '\')`, pat, pat)
	}
	if f.CreatedAfter != nil {
		q = q.Where("i.created_at >= ?", ts(*f.CreatedAfter))
	}
	if f.CreatedBefore != nil {
		q = q.Where("i.created_at <= ?", ts(*f.CreatedBefore))
	}
	q = q.OrderExpr(orderBy(f.Ascending, col, "i.id"))
	n, err := page(ctx, q, f.Page)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list issues: %w", err)
	}
	out, err := withIssueLabels(ctx, db, rows)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list issues: %w", err)
	}
	return out, n, nil
}

// CountOpen groups the open issues of projectIDs that viewer may see in
// one query.
func (st *issueStore) CountOpen(ctx context.Context, projectIDs []int64, viewer domain.IssueViewer) (map[int64]int, error) {
	out := map[int64]int{}
	if len(projectIDs) == 0 {
		return out, nil
	}
	var counts []struct {
		ProjectID int64 `bun:"project_id"`
		N         int   `bun:"n"`
	}
	q := st.s.Conn(ctx).NewSelect().Model((*issueRow)(nil)).
		Column("i.project_id").ColumnExpr("count(*) AS n").
		Where("i.project_id IN (?) AND i.state IN (?)", bun.List(dedupeIDs(projectIDs)), openIssueStates)
	if err := whereIssueViewer(q, viewer, "i.").Group("i.project_id").Scan(ctx, &counts); err != nil {
		return nil, fmt.Errorf("bunstore: count open issues of %d projects: %w", len(projectIDs), err)
	}
	for _, c := range counts {
		out[c.ProjectID] = c.N
	}
	return out, nil
}

var _ ports.IssueStore = (*issueStore)(nil)
var _ ports.IssueCounter = (*issueStore)(nil)
