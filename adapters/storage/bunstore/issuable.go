package bunstore

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// The award names that count as votes.
const (
	awardUpvote   = "thumbsup"
	awardDownvote = "thumbsdown"
)

// issuable is what issues and merge requests store alike: numbers from a
// per-project counter, labels by name, the notes count and the votes
// every read computes, the rows without a foreign key that go with them,
// and the list filters and orders. R is the row, D the domain value.
type issuable[R, D any] struct {
	typ     string // their type for notes, awards, todos and subscriptions
	what    string // core.NotFound's name for them
	alias   string // the table's alias in queries
	iids    string // the per-project counter table
	labels  labelLinks
	columns func(*bun.SelectQuery) *bun.SelectQuery // the stored columns reads select
	id      func(*R) int64
	domain  func(*R, []string) D
}

// query selects into dest with the notes count and the votes computed by
// correlated subqueries over notes_noteable_idx and
// award_emoji_awardable_idx: one query for any page.
func (k issuable[R, D]) query(db bun.IDB, dest any) *bun.SelectQuery {
	own := k.alias + ".id"
	votes := "(SELECT count(*) FROM award_emoji AS a WHERE a.awardable_type = ? AND a.awardable_id = " + own + " AND a.name = ?)"
	return k.columns(db.NewSelect().Model(dest)).
		ColumnExpr("(SELECT count(*) FROM notes AS n WHERE n.noteable_type = ? AND n.noteable_id = "+own+" AND n.system = ?) AS user_notes_count",
			k.typ, false).
		ColumnExpr(votes+" AS upvotes", k.typ, awardUpvote).
		ColumnExpr(votes+" AS downvotes", k.typ, awardDownvote)
}

// one reads the row where selects, with its labels; lock takes its row
// lock (Store.forUpdate).
func (k issuable[R, D]) one(ctx context.Context, s *Store, db bun.IDB, lock bool, where string, args ...any) (*D, error) {
	row := new(R)
	q := k.query(db, row).Where(where, args...)
	if lock {
		q = s.forUpdate(q, k.alias)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, readErr(err, k.what)
	}
	out, err := k.withLabels(ctx, db, []R{*row})
	if err != nil {
		return nil, err
	}
	return &out[0], nil
}

// find reads the rows where selects, ordered by the order expression,
// with their labels: two queries.
func (k issuable[R, D]) find(ctx context.Context, db bun.IDB, order, where string, args ...any) ([]D, error) {
	rows := []R{}
	if err := k.query(db, &rows).Where(where, args...).OrderExpr(order).Scan(ctx); err != nil {
		return nil, err
	}
	return k.withLabels(ctx, db, rows)
}

// withLabels converts rows, loading the labels of all of them in one query.
func (k issuable[R, D]) withLabels(ctx context.Context, db bun.IDB, rows []R) ([]D, error) {
	out := make([]D, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	ids := make([]int64, len(rows))
	for i := range rows {
		ids[i] = k.id(&rows[i])
	}
	labels, err := k.labels.load(ctx, db, ids)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		out[i] = k.domain(&rows[i], labels[ids[i]])
	}
	return out, nil
}

// create numbers row (iid points into it) from the project's counter,
// inserts it with insert and links its labels, in one transaction: so
// concurrent creates queue on the counter and a failed insert gives its
// number back.
func (k issuable[R, D]) create(ctx context.Context, s *Store, projectID int64, row *R, iid *int64, labels []string,
	insert func(ctx context.Context, db bun.IDB) error,
) error {
	return s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		n, err := nextIID(ctx, db, k.iids, projectID)
		if err != nil {
			return err
		}
		*iid = n
		if err := insert(ctx, db); err != nil {
			return err
		}
		return k.labels.insert(ctx, db, k.id(row), labels)
	})
}

// nextIIDSQL bumps (or starts) a project's row of a counter table.
const nextIIDSQL = `INSERT INTO %[1]s (project_id, last_iid) VALUES (?, 1)
ON CONFLICT (project_id) DO UPDATE SET last_iid = %[1]s.last_iid + 1
RETURNING last_iid`

// nextIID takes the project's next number from counter (issue_iids,
// merge_request_iids, milestone_iids). Called in the transaction that
// inserts the numbered row, it holds the counter row until that commits.
// An unknown project is core.ErrNotFound.
func nextIID(ctx context.Context, db bun.IDB, counter string, projectID int64) (int64, error) {
	var iid int64
	if err := db.NewRaw(fmt.Sprintf(nextIIDSQL, counter), projectID).Scan(ctx, &iid); err != nil {
		return 0, writeErr(err, "Project")
	}
	return iid, nil
}

// delete removes the one numbered iid in the project, in one transaction
// with what has no foreign key to it (deleteIssuableDependents); its
// labels go by ON DELETE CASCADE.
func (k issuable[R, D]) delete(ctx context.Context, s *Store, projectID, iid int64) error {
	return s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		var id int64
		if err := db.NewSelect().Model((*R)(nil)).Column(k.alias+".id").
			Where(k.alias+".project_id = ? AND "+k.alias+".iid = ?", projectID, iid).Scan(ctx, &id); err != nil {
			return readErr(err, k.what)
		}
		if err := deleteIssuableDependents(ctx, db, k.typ, id); err != nil {
			return err
		}
		res, err := db.NewDelete().Model((*R)(nil)).Where("id = ?", id).Exec(ctx)
		if err != nil {
			return err
		}
		return mustAffect(res, k.what)
	})
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

// issuableFilter is what issue and merge request lists filter and order
// by alike.
type issuableFilter struct {
	IIDs                        []int64
	States                      []string // empty: all
	AuthorID, AssigneeID        int64
	MilestoneIDs                []int64
	NoMilestone                 bool
	Labels                      []string // every one of them
	NoLabels                    bool
	CreatedAfter, CreatedBefore *time.Time // inclusive
	OrderBy                     string     // created_at (default) or updated_at
	Ascending                   bool
	Page                        domain.Page
	// Total, when set, is the number of rows the filter selects, known
	// without counting them (issue_counts).
	Total *int
}

// issuableOrders maps OrderBy to its column; ID breaks ties.
var issuableOrders = map[string]string{"": "created_at", "created_at": "created_at", "updated_at": "updated_at"}

// list selects what scope (the kind's own filters) and f select and costs
// three queries (the count, the page, its labels) whatever the page size.
// An unknown OrderBy is core.ErrInvalid.
func (k issuable[R, D]) list(ctx context.Context, db bun.IDB, f issuableFilter, scope func(*bun.SelectQuery) *bun.SelectQuery) ([]D, int, error) {
	col, ok := issuableOrders[f.OrderBy]
	if !ok {
		return nil, 0, core.InvalidParam("order_by")
	}
	c := k.alias + "."
	rows := []R{}
	q := scope(k.query(db, &rows))
	if len(f.IIDs) > 0 {
		q = q.Where(c+"iid IN (?)", bun.List(dedupeIDs(f.IIDs)))
	}
	if len(f.States) > 0 {
		q = q.Where(c+"state IN (?)", bun.List(dedupeStrings(f.States)))
	}
	q = whereSet(q, c+"author_id = ?", f.AuthorID)
	q = whereSet(q, c+"assignee_id = ?", f.AssigneeID)
	if len(f.MilestoneIDs) > 0 {
		q = q.Where(c+"milestone_id IN (?)", bun.List(dedupeIDs(f.MilestoneIDs)))
	}
	if f.NoMilestone {
		q = q.Where(c + "milestone_id IS NULL")
	}
	l := k.labels
	labelled := "EXISTS (SELECT 1 FROM " + l.table + " AS " + l.alias + " WHERE " + l.alias + "." + l.owner + " = " + c + "id"
	for _, name := range dedupeStrings(f.Labels) {
		q = q.Where(labelled+" AND "+l.alias+".name = ?)", name)
	}
	if f.NoLabels {
		q = q.Where("NOT " + labelled + ")")
	}
	if f.CreatedAfter != nil {
		q = q.Where(c+"created_at >= ?", ts(*f.CreatedAfter))
	}
	if f.CreatedBefore != nil {
		q = q.Where(c+"created_at <= ?", ts(*f.CreatedBefore))
	}
	q = q.OrderExpr(orderBy(f.Ascending, c+col, c+"id"))
	n, err := pageOf(ctx, q, f.Page, f.Total)
	if err != nil {
		return nil, 0, err
	}
	out, err := k.withLabels(ctx, db, rows)
	if err != nil {
		return nil, 0, err
	}
	return out, n, nil
}
