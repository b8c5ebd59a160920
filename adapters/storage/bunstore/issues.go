package bunstore

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
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
	// Time tracking (migration 0018) is written only by timeTrackingStore.
	TimeEstimate   int64 `bun:"time_estimate,scanonly"`
	TotalTimeSpent int64 `bun:"total_time_spent,scanonly"`
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
		TimeStats:      domain.TimeStats{TimeEstimate: r.TimeEstimate, TotalTimeSpent: r.TotalTimeSpent},
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

var issueKind = issuable[issueRow, domain.Issue]{
	typ: domain.TargetIssue, what: "Issue", alias: "i", iids: "issue_iids", labels: issueLabelLinks,
	columns: func(q *bun.SelectQuery) *bun.SelectQuery { return q.ColumnExpr("i.*") },
	id:      func(r *issueRow) int64 { return r.ID },
	domain:  (*issueRow).domain,
}

type issueStore struct{ s *Store }

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
// issue and its labels in one transaction (issuable.create). An empty
// State is opened; a zero UpdatedAt is CreatedAt. An unknown assignee is
// core.ErrNotFound ("User").
func (st *issueStore) Create(ctx context.Context, i *domain.Issue) error {
	if i.State == "" {
		i.State = domain.IssueOpened
	}
	i.CreatedAt, i.UpdatedAt = created(i.CreatedAt, i.UpdatedAt)
	labels := normLabels(i.Labels)
	row := newIssueRow(i)
	row.ID = 0
	err := issueKind.create(ctx, st.s, i.ProjectID, row, &row.IID, labels, func(ctx context.Context, db bun.IDB) error {
		_, err := db.NewInsert().Model(row).Returning("id").Exec(ctx)
		return writeErr(err, "User")
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
	return issueKind.one(ctx, st.s, db, lock, "i.project_id = ? AND i.iid = ?", projectID, iid)
}

// GetMany orders by ID; unknown IDs are skipped.
func (st *issueStore) GetMany(ctx context.Context, ids []int64) ([]domain.Issue, error) {
	if len(ids) == 0 {
		return []domain.Issue{}, nil
	}
	out, err := issueKind.find(ctx, st.s.Conn(ctx), "i.id", "i.id IN (?)", bun.List(dedupeIDs(ids)))
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
	out, err := issueKind.find(ctx, st.s.Conn(ctx), "i.id", "i.project_id = ? AND i.iid IN (?)", projectID, bun.List(dedupeIDs(iids)))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get %d issues of project %d: %w", len(iids), projectID, err)
	}
	return out, nil
}

// Update locks the row, applies fn and saves every column, replacing the
// labels when they changed. ID, IID and the project stay; the notes count
// and the votes are read-only.
func (st *issueStore) Update(ctx context.Context, projectID, iid int64, fn func(i *domain.Issue) error) (*domain.Issue, error) {
	load := func(ctx context.Context, db bun.IDB) (*domain.Issue, error) {
		return st.one(ctx, db, true, projectID, iid)
	}
	edit := func(i *domain.Issue) error {
		i.Labels = slices.Clone(i.Labels)
		return fn(i)
	}
	save := func(ctx context.Context, db bun.IDB, old, i *domain.Issue) (*domain.Issue, error) {
		i.ID, i.IID, i.ProjectID = old.ID, old.IID, old.ProjectID
		i.UserNotesCount, i.Upvotes, i.Downvotes = old.UserNotesCount, old.Upvotes, old.Downvotes
		i.UpdatedAt = edited(i.UpdatedAt, old.UpdatedAt)
		labels := normLabels(i.Labels)
		row := newIssueRow(i)
		row.UserNotesCount, row.Upvotes, row.Downvotes = i.UserNotesCount, i.Upvotes, i.Downvotes
		row.TimeEstimate, row.TotalTimeSpent = old.TimeStats.TimeEstimate, old.TimeStats.TotalTimeSpent
		if _, err := db.NewUpdate().Model(row).WherePK().Exec(ctx); err != nil {
			return nil, writeErr(err, "User")
		}
		if err := issueLabelLinks.update(ctx, db, row.ID, old.Labels, labels); err != nil {
			return nil, err
		}
		out := row.domain(labels)
		return &out, nil
	}
	return modify(ctx, st.s, load, edit, save, func(err error) error {
		return fmt.Errorf("bunstore: update issue #%d of project %d: %w", iid, projectID, err)
	})
}

// Delete removes the issue in one transaction with what has no foreign key
// to it: its notes (and their awards), awards, todos and subscriptions.
// Its labels go by ON DELETE CASCADE.
func (st *issueStore) Delete(ctx context.Context, projectID, iid int64) error {
	if err := issueKind.delete(ctx, st.s, projectID, iid); err != nil {
		return fmt.Errorf("bunstore: delete issue #%d of project %d: %w", iid, projectID, err)
	}
	return nil
}

// List applies every filter of f in the SQL and costs three queries (the
// count, the page, its labels) whatever the page size. Without a project
// it joins projects for the read scope, issues_enabled and the namespaces
// asked for. The opened state includes reopened. An unknown OrderBy is core.ErrInvalid.
func (st *issueStore) List(ctx context.Context, f domain.IssueFilter) ([]domain.Issue, int, error) {
	states := slices.Clone(f.States)
	if slices.Contains(states, domain.IssueOpened) {
		states = append(states, domain.IssueReopened)
	}
	common := issuableFilter{IIDs: f.IIDs, States: states, AuthorID: f.AuthorID, AssigneeID: f.AssigneeID,
		MilestoneIDs: f.MilestoneIDs, NoMilestone: f.NoMilestone, Labels: f.Labels, NoLabels: f.NoLabels,
		CreatedAfter: f.CreatedAfter, CreatedBefore: f.CreatedBefore, OrderBy: f.OrderBy, Ascending: f.Ascending, Page: f.Page}
	if n, ok, err := st.knownTotal(ctx, f); err != nil {
		return nil, 0, fmt.Errorf("bunstore: list issues: %w", err)
	} else if ok {
		common.Total = &n
	}
	out, n, err := issueKind.list(ctx, st.s.Conn(ctx), common, func(q *bun.SelectQuery) *bun.SelectQuery {
		if f.ProjectID != 0 {
			q = q.Where("i.project_id = ?", f.ProjectID)
		} else {
			q = q.Join("JOIN projects AS p ON p.id = i.project_id").Where("p.issues_enabled = ?", true)
			q = whereReadable(q, f.Readable, "p.")
			if len(f.NamespaceIDs) > 0 {
				q = q.Where("p.namespace_id IN (?)", bun.List(dedupeIDs(f.NamespaceIDs)))
			}
		}
		if f.MilestoneTitle != "" {
			q = q.Where("EXISTS (SELECT 1 FROM milestones AS m WHERE m.id = i.milestone_id AND m.title = ?)", f.MilestoneTitle)
		}
		q = whereIssueViewer(q, f.Viewer, "i.")
		return whereContains(q, f.Search, "i.title", "i.description")
	})
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list issues: %w", err)
	}
	return out, n, nil
}

// issueCountRow is a project's row of issue_counts (migration 0011), kept
// by triggers in the transaction of every change to an issue.
type issueCountRow struct {
	ProjectID        int64 `bun:"project_id"`
	All              int   `bun:"all_count"`
	AllConfidential  int   `bun:"all_confidential_count"`
	Open             int   `bun:"open_count"`
	OpenConfidential int   `bun:"open_confidential_count"`
	NamespaceID      int64 `bun:"namespace_id"`
}

// visible is how many of total issues (conf of them confidential) viewer
// sees in the row's project; ok is false for a signed-in viewer who may
// see some of its confidential issues (their own, or assigned to them) but
// not all: those have to be counted.
func (r issueCountRow) visible(total, conf int, viewer domain.IssueViewer) (n int, ok bool) {
	switch {
	case conf == 0 || viewer.All || slices.Contains(viewer.ProjectIDs, r.ProjectID) ||
		slices.Contains(viewer.NamespaceIDs, r.NamespaceID):
		return total, true
	case viewer.UserID == 0:
		return total - conf, true
	}
	return 0, false
}

func (st *issueStore) counts(ctx context.Context, ids []int64) ([]issueCountRow, error) {
	var rows []issueCountRow
	err := st.s.Conn(ctx).NewSelect().TableExpr("issue_counts AS c").
		Join("JOIN projects AS p ON p.id = c.project_id").
		ColumnExpr("c.project_id, c.all_count, c.all_confidential_count, c.open_count, c.open_confidential_count, p.namespace_id").
		Where("c.project_id IN (?)", bun.List(ids)).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("read issue counts of %d projects: %w", len(ids), err)
	}
	return rows, nil
}

// CountOpen gives the open issues of projectIDs that viewer may see, from
// the counts the issue_counts triggers keep: one indexed read whatever the
// number of issues (issueCountRow.visible says when the issues must be
// counted instead). Projects without open issues are absent.
func (st *issueStore) CountOpen(ctx context.Context, projectIDs []int64, viewer domain.IssueViewer) (map[int64]int, error) {
	if len(projectIDs) == 0 {
		return map[int64]int{}, nil
	}
	rows, err := st.counts(ctx, dedupeIDs(projectIDs))
	if err != nil {
		return nil, fmt.Errorf("bunstore: %w", err)
	}
	out := make(map[int64]int, len(rows))
	var exact []int64
	for _, r := range rows {
		n, ok := r.visible(r.Open, r.OpenConfidential, viewer)
		switch {
		case !ok:
			exact = append(exact, r.ProjectID)
		case n > 0:
			out[r.ProjectID] = n
		}
	}
	if len(exact) == 0 {
		return out, nil
	}
	q := st.s.Conn(ctx).NewSelect().Model((*issueRow)(nil)).
		Where("i.project_id IN (?) AND i.state IN (?)", bun.List(exact), openIssueStates)
	counted, err := countBy(ctx, whereIssueViewer(q, viewer, "i."), "i.project_id")
	if err != nil {
		return nil, fmt.Errorf("bunstore: count open issues of %d projects: %w", len(exact), err)
	}
	maps.Copy(out, counted)
	return out, nil
}

// knownTotal is the number of issues a list of one project's issues
// selects, from issue_counts, when the list filters on nothing but the
// state (all, opened or closed) and what the viewer may see; ok is false
// otherwise, and the list counts its rows.
func (st *issueStore) knownTotal(ctx context.Context, f domain.IssueFilter) (total int, ok bool, err error) {
	rest := f
	rest.ProjectID, rest.Readable, rest.Viewer, rest.States = 0, domain.ReadScope{}, domain.IssueViewer{}, nil
	rest.OrderBy, rest.Ascending, rest.Page = "", false, domain.Page{}
	if f.ProjectID == 0 || len(f.States) > 1 || !reflect.ValueOf(rest).IsZero() {
		return 0, false, nil
	}
	rows, err := st.counts(ctx, []int64{f.ProjectID})
	if err != nil || len(rows) == 0 {
		return 0, err == nil, err
	}
	r := rows[0]
	state := ""
	if len(f.States) == 1 {
		state = f.States[0]
	}
	switch state {
	case "":
		total, ok = r.visible(r.All, r.AllConfidential, f.Viewer)
	case domain.IssueOpened:
		total, ok = r.visible(r.Open, r.OpenConfidential, f.Viewer)
	case domain.IssueClosed:
		total, ok = r.visible(r.All-r.Open, r.AllConfidential-r.OpenConfidential, f.Viewer)
	}
	return total, ok, nil
}

var _ ports.IssueStore = (*issueStore)(nil)
var _ ports.IssueCounter = (*issueStore)(nil)
