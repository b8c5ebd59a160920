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

// mergeRequestRow is a row of merge_requests. Labels live in
// merge_request_labels; user_notes_count, upvotes and downvotes are
// computed from notes and award_emoji by every read (scanonly: never
// written; the table's own upvotes and downvotes columns stay unused).
type mergeRequestRow struct {
	bun.BaseModel `bun:"table:merge_requests,alias:mr"`

	ID                        int64      `bun:"id,pk,autoincrement"`
	IID                       int64      `bun:"iid"`
	ProjectID                 int64      `bun:"project_id"`
	SourceProjectID           int64      `bun:"source_project_id"`
	TargetProjectID           int64      `bun:"target_project_id"`
	Title                     string     `bun:"title"`
	Description               string     `bun:"description"`
	State                     string     `bun:"state"`
	SourceBranch              string     `bun:"source_branch"`
	TargetBranch              string     `bun:"target_branch"`
	AuthorID                  int64      `bun:"author_id"`
	AssigneeID                *int64     `bun:"assignee_id"`
	MilestoneID               *int64     `bun:"milestone_id"`
	MergeStatus               string     `bun:"merge_status"`
	SourceSHA                 string     `bun:"source_sha"`
	TargetSHA                 string     `bun:"target_sha"`
	BaseSHA                   string     `bun:"base_sha"`
	MergeWhenPipelineSucceeds bool       `bun:"merge_when_pipeline_succeeds"`
	MergeUserID               *int64     `bun:"merge_user_id"`
	MergeCommitMessage        string     `bun:"merge_commit_message"`
	ShouldRemoveSourceBranch  bool       `bun:"should_remove_source_branch"`
	ForceRemoveSourceBranch   bool       `bun:"force_remove_source_branch"`
	PipelineSucceededSHA      string     `bun:"pipeline_succeeded_sha"`
	MergeCommitSHA            *string    `bun:"merge_commit_sha"`
	InFlightSHA               string     `bun:"in_flight_sha"`
	LockedAt                  *time.Time `bun:"locked_at"`
	CreatedAt                 time.Time  `bun:"created_at"`
	UpdatedAt                 time.Time  `bun:"updated_at"`
	MergedAt                  *time.Time `bun:"merged_at"`
	ClosedAt                  *time.Time `bun:"closed_at"`

	UserNotesCount int `bun:"user_notes_count,scanonly"`
	Upvotes        int `bun:"upvotes,scanonly"`
	Downvotes      int `bun:"downvotes,scanonly"`
}

func newMergeRequestRow(m *domain.MergeRequest) *mergeRequestRow {
	return &mergeRequestRow{
		ID:                        m.ID,
		IID:                       m.IID,
		ProjectID:                 m.ProjectID,
		SourceProjectID:           m.SourceProjectID,
		TargetProjectID:           m.TargetProjectID,
		Title:                     m.Title,
		Description:               m.Description,
		State:                     string(m.State),
		SourceBranch:              m.SourceBranch,
		TargetBranch:              m.TargetBranch,
		AuthorID:                  m.AuthorID,
		AssigneeID:                m.AssigneeID,
		MilestoneID:               m.MilestoneID,
		MergeStatus:               m.MergeStatus,
		SourceSHA:                 m.SourceSHA,
		TargetSHA:                 m.TargetSHA,
		BaseSHA:                   m.BaseSHA,
		MergeWhenPipelineSucceeds: m.MergeWhenPipelineSucceeds,
		MergeUserID:               m.MergeUserID,
		MergeCommitMessage:        m.MergeCommitMessage,
		ShouldRemoveSourceBranch:  m.ShouldRemoveSourceBranch,
		ForceRemoveSourceBranch:   m.ForceRemoveSourceBranch,
		PipelineSucceededSHA:      m.PipelineSucceededSHA,
		MergeCommitSHA:            m.MergeCommitSHA,
		InFlightSHA:               m.InFlightSHA,
		LockedAt:                  tsPtr(m.LockedAt),
		Upvotes:                   m.Upvotes,
		Downvotes:                 m.Downvotes,
		CreatedAt:                 ts(m.CreatedAt),
		UpdatedAt:                 ts(m.UpdatedAt),
		MergedAt:                  tsPtr(m.MergedAt),
		ClosedAt:                  tsPtr(m.ClosedAt),
		UserNotesCount:            m.UserNotesCount,
	}
}

func (r *mergeRequestRow) domain(labels []string) domain.MergeRequest {
	return domain.MergeRequest{
		ID:                        r.ID,
		IID:                       r.IID,
		ProjectID:                 r.ProjectID,
		SourceProjectID:           r.SourceProjectID,
		TargetProjectID:           r.TargetProjectID,
		Title:                     r.Title,
		Description:               r.Description,
		State:                     domain.MergeRequestState(r.State),
		SourceBranch:              r.SourceBranch,
		TargetBranch:              r.TargetBranch,
		AuthorID:                  r.AuthorID,
		AssigneeID:                r.AssigneeID,
		MilestoneID:               r.MilestoneID,
		Labels:                    labels,
		MergeStatus:               r.MergeStatus,
		SourceSHA:                 r.SourceSHA,
		TargetSHA:                 r.TargetSHA,
		BaseSHA:                   r.BaseSHA,
		MergeWhenPipelineSucceeds: r.MergeWhenPipelineSucceeds,
		MergeUserID:               r.MergeUserID,
		MergeCommitMessage:        r.MergeCommitMessage,
		ShouldRemoveSourceBranch:  r.ShouldRemoveSourceBranch,
		ForceRemoveSourceBranch:   r.ForceRemoveSourceBranch,
		PipelineSucceededSHA:      r.PipelineSucceededSHA,
		MergeCommitSHA:            r.MergeCommitSHA,
		InFlightSHA:               r.InFlightSHA,
		LockedAt:                  utcPtr(r.LockedAt),
		Upvotes:                   r.Upvotes,
		Downvotes:                 r.Downvotes,
		UserNotesCount:            r.UserNotesCount,
		CreatedAt:                 r.CreatedAt.UTC(),
		UpdatedAt:                 r.UpdatedAt.UTC(),
		MergedAt:                  utcPtr(r.MergedAt),
		ClosedAt:                  utcPtr(r.ClosedAt),
	}
}

// openStates are the states the one-open-merge-request rule covers; they
// match the predicate of merge_requests_open_key.
var openStates = bun.List([]string{string(domain.MROpened), string(domain.MRReopened)})

type mergeRequestStore struct{ s *Store }

// query selects merge requests into dest with user_notes_count, upvotes
// and downvotes computed by correlated subqueries over notes_noteable_idx
// and award_emoji_awardable_idx: one query for any page. ExcludeColumn()
// lists the row's stored columns (not mr.*, whose unused vote columns
// would clash with the computed ones).
func (st *mergeRequestStore) query(db bun.IDB, dest any) *bun.SelectQuery {
	const votes = "(SELECT count(*) FROM award_emoji AS aw WHERE aw.awardable_type = ? AND aw.awardable_id = mr.id AND aw.name = ?)"
	return db.NewSelect().Model(dest).ExcludeColumn().
		ColumnExpr("(SELECT count(*) FROM notes AS n WHERE n.noteable_type = ? AND n.noteable_id = mr.id AND n.system = ?) AS user_notes_count",
			domain.TargetMergeRequest, false).
		ColumnExpr(votes+" AS upvotes", domain.TargetMergeRequest, "thumbsup").
		ColumnExpr(votes+" AS downvotes", domain.TargetMergeRequest, "thumbsdown")
}

// Create takes the next IID from the project's counter row and inserts the
// merge request and its labels in one transaction, so concurrent creates
// queue on the counter and a failed insert gives its IID back. Empty
// State, MergeStatus and project IDs default to opened, unchecked and
// ProjectID (or TargetProjectID).
func (st *mergeRequestStore) Create(ctx context.Context, m *domain.MergeRequest) error {
	if m.ProjectID == 0 {
		m.ProjectID = m.TargetProjectID
	}
	if m.TargetProjectID == 0 {
		m.TargetProjectID = m.ProjectID
	}
	if m.SourceProjectID == 0 {
		m.SourceProjectID = m.ProjectID
	}
	if m.State == "" {
		m.State = domain.MROpened
	}
	if m.MergeStatus == "" {
		m.MergeStatus = domain.MergeUnchecked
	}
	m.CreatedAt = orNow(m.CreatedAt)
	if m.UpdatedAt.IsZero() {
		m.UpdatedAt = m.CreatedAt
	}
	labels := normLabels(m.Labels)
	row := newMergeRequestRow(m)
	row.ID, row.UserNotesCount, row.Upvotes, row.Downvotes = 0, 0, 0, 0
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		if err := db.NewRaw(`INSERT INTO merge_request_iids (project_id, last_iid) VALUES (?, 1)
ON CONFLICT (project_id) DO UPDATE SET last_iid = merge_request_iids.last_iid + 1
RETURNING last_iid`, m.ProjectID).Scan(ctx, &row.IID); err != nil {
			return writeErr(err, "Project")
		}
		err := st.s.guarded(ctx, func(ctx context.Context, db bun.IDB) error {
			_, err := db.NewInsert().Model(row).Returning("id").Exec(ctx)
			return err
		})
		if err != nil {
			return st.writeErr(ctx, err, row)
		}
		return mergeRequestLabelLinks.insert(ctx, db, row.ID, labels)
	})
	if err != nil {
		return fmt.Errorf("bunstore: create merge request in project %d: %w", m.ProjectID, err)
	}
	*m = row.domain(labels)
	return nil
}

// writeErr maps an insert or update error of row. Breaking the one open
// merge request per branch pair rule is GitLab's "already exists"
// conflict naming the open one (read in the still usable transaction); a
// foreign-key violation can only be an unknown assignee.
func (st *mergeRequestStore) writeErr(ctx context.Context, err error, row *mergeRequestRow) error {
	detail, ok := uniqueViolation(err)
	if !ok {
		if foreignKeyViolation(err) {
			return core.NotFound("User")
		}
		return err
	}
	if !strings.Contains(detail, "merge_requests_open_key") && !strings.Contains(detail, "merge_requests.source_project_id") {
		return conflict(detail)
	}
	titles := []string{}
	if qerr := st.s.Conn(ctx).NewSelect().Model((*mergeRequestRow)(nil)).Column("mr.title").
		Where("mr.source_project_id = ? AND mr.source_branch = ?", row.SourceProjectID, row.SourceBranch).
		Where("mr.target_project_id = ? AND mr.target_branch = ?", row.TargetProjectID, row.TargetBranch).
		Where("mr.state IN (?) AND mr.id <> ?", openStates, row.ID).
		Order("mr.id").Scan(ctx, &titles); qerr != nil {
		titles = []string{}
	}
	quoted := make([]string, len(titles))
	for i, t := range titles {
		quoted[i] = fmt.Sprintf("%q", t)
	}
	return core.Conflict("Cannot Create: This merge request already exists: [" + strings.Join(quoted, ", ") + "]")
}

func (st *mergeRequestStore) Get(ctx context.Context, projectID, iid int64) (*domain.MergeRequest, error) {
	m, err := st.one(ctx, st.s.Conn(ctx), false, "mr.project_id = ? AND mr.iid = ?", projectID, iid)
	if err != nil {
		return nil, fmt.Errorf("bunstore: get merge request !%d of project %d: %w", iid, projectID, err)
	}
	return m, nil
}

func (st *mergeRequestStore) GetByID(ctx context.Context, id int64) (*domain.MergeRequest, error) {
	m, err := st.one(ctx, st.s.Conn(ctx), false, "mr.id = ?", id)
	if err != nil {
		return nil, fmt.Errorf("bunstore: get merge request %d: %w", id, err)
	}
	return m, nil
}

// one reads the merge request where selects, with its labels; lock takes
// the row lock when the store uses them.
func (st *mergeRequestStore) one(ctx context.Context, db bun.IDB, lock bool, where string, args ...any) (*domain.MergeRequest, error) {
	row := new(mergeRequestRow)
	q := st.query(db, row).Where(where, args...)
	if lock && st.s.rowLocks {
		q = q.For("NO KEY UPDATE OF mr")
	}
	if err := q.Scan(ctx); err != nil {
		return nil, readErr(err, "Merge Request")
	}
	labels, err := mergeRequestLabelLinks.load(ctx, db, []int64{row.ID})
	if err != nil {
		return nil, err
	}
	m := row.domain(labels[row.ID])
	return &m, nil
}

// GetMany orders by ID; unknown IDs are skipped.
func (st *mergeRequestStore) GetMany(ctx context.Context, ids []int64) ([]domain.MergeRequest, error) {
	if len(ids) == 0 {
		return []domain.MergeRequest{}, nil
	}
	rows := []mergeRequestRow{}
	db := st.s.Conn(ctx)
	if err := st.query(db, &rows).Where("mr.id IN (?)", bun.List(dedupeIDs(ids))).Order("mr.id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("bunstore: get %d merge requests: %w", len(ids), err)
	}
	out, err := st.withLabels(ctx, db, rows)
	if err != nil {
		return nil, fmt.Errorf("bunstore: get %d merge requests: %w", len(ids), err)
	}
	return out, nil
}

// withLabels converts rows, loading the labels of all of them in one query.
func (st *mergeRequestStore) withLabels(ctx context.Context, db bun.IDB, rows []mergeRequestRow) ([]domain.MergeRequest, error) {
	out := make([]domain.MergeRequest, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	ids := make([]int64, len(rows))
	for i := range rows {
		ids[i] = rows[i].ID
	}
	labels, err := mergeRequestLabelLinks.load(ctx, db, ids)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		out[i] = rows[i].domain(labels[rows[i].ID])
	}
	return out, nil
}

// Update locks the row, applies fn and saves every column, replacing the
// labels when they changed. ID, IID and the target project stay;
// UserNotesCount and the votes are read-only. core.ErrNotFound when absent; fn's error is
// returned as is.
func (st *mergeRequestStore) Update(ctx context.Context, projectID, iid int64, fn func(m *domain.MergeRequest) error) (*domain.MergeRequest, error) {
	var out domain.MergeRequest
	var fnErr error
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		old, err := st.one(ctx, db, true, "mr.project_id = ? AND mr.iid = ?", projectID, iid)
		if err != nil {
			return err
		}
		m := *old
		m.Labels = append([]string(nil), old.Labels...)
		if fnErr = fn(&m); fnErr != nil {
			return fnErr
		}
		m.ID, m.IID, m.ProjectID, m.TargetProjectID = old.ID, old.IID, old.ProjectID, old.TargetProjectID
		m.UserNotesCount, m.Upvotes, m.Downvotes = old.UserNotesCount, old.Upvotes, old.Downvotes
		if m.UpdatedAt.Equal(old.UpdatedAt) {
			m.UpdatedAt = now()
		}
		labels := normLabels(m.Labels)
		row := newMergeRequestRow(&m)
		err = st.s.guarded(ctx, func(ctx context.Context, db bun.IDB) error {
			_, err := db.NewUpdate().Model(row).WherePK().Exec(ctx)
			return err
		})
		if err != nil {
			return st.writeErr(ctx, err, row)
		}
		if !slices.Equal(labels, old.Labels) {
			if err := mergeRequestLabelLinks.replace(ctx, db, row.ID, labels); err != nil {
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
		return nil, fmt.Errorf("bunstore: update merge request !%d of project %d: %w", iid, projectID, err)
	}
	return &out, nil
}

// Delete removes the merge request; its labels go by ON DELETE CASCADE,
// and its notes (with their awards), awards, todos and subscriptions,
// which have no foreign key to it, in the same transaction.
func (st *mergeRequestStore) Delete(ctx context.Context, projectID, iid int64) error {
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		var id int64
		if err := db.NewSelect().Model((*mergeRequestRow)(nil)).Column("mr.id").
			Where("mr.project_id = ? AND mr.iid = ?", projectID, iid).Scan(ctx, &id); err != nil {
			return readErr(err, "Merge Request")
		}
		if err := deleteIssuableDependents(ctx, db, domain.TargetMergeRequest, id); err != nil {
			return err
		}
		res, err := db.NewDelete().Model((*mergeRequestRow)(nil)).Where("id = ?", id).Exec(ctx)
		if err != nil {
			return err
		}
		return mustAffect(res, "Merge Request")
	})
	if err != nil {
		return fmt.Errorf("bunstore: delete merge request !%d of project %d: %w", iid, projectID, err)
	}
	return nil
}

// mergeRequestOrders maps OrderBy to its column; ID breaks ties.
var mergeRequestOrders = map[string]string{
	"":           "mr.created_at",
	"created_at": "mr.created_at",
	"updated_at": "mr.updated_at",
}

// List applies every filter of f in the SQL and costs three queries (the
// count, the page, its labels) whatever the page size. The read scope
// applies only without a project. An unknown OrderBy is core.ErrInvalid.
func (st *mergeRequestStore) List(ctx context.Context, f domain.MergeRequestFilter) ([]domain.MergeRequest, int, error) {
	col, ok := mergeRequestOrders[f.OrderBy]
	if !ok {
		return nil, 0, fmt.Errorf("bunstore: list merge requests: %w", core.InvalidParam("order_by"))
	}
	db := st.s.Conn(ctx)
	rows := []mergeRequestRow{}
	q := st.query(db, &rows)
	if f.ProjectID != 0 {
		q = q.Where("mr.project_id = ?", f.ProjectID)
	} else if !f.Readable.All {
		readable := whereReadable(db.NewSelect().Table("projects").Column("id"), f.Readable, "")
		q = q.Where("mr.project_id IN (?)", readable)
	}
	if len(f.IIDs) > 0 {
		q = q.Where("mr.iid IN (?)", bun.List(dedupeIDs(f.IIDs)))
	}
	if len(f.States) > 0 {
		states := make([]string, len(f.States))
		for i, s := range f.States {
			states[i] = string(s)
		}
		q = q.Where("mr.state IN (?)", bun.List(dedupeStrings(states)))
	}
	if f.AuthorID != 0 {
		q = q.Where("mr.author_id = ?", f.AuthorID)
	}
	if f.AssigneeID != 0 {
		q = q.Where("mr.assignee_id = ?", f.AssigneeID)
	}
	if len(f.MilestoneIDs) > 0 {
		q = q.Where("mr.milestone_id IN (?)", bun.List(dedupeIDs(f.MilestoneIDs)))
	}
	if f.NoMilestone {
		q = q.Where("mr.milestone_id IS NULL")
	}
	for _, l := range dedupeStrings(f.Labels) {
		q = q.Where("EXISTS (SELECT 1 FROM merge_request_labels AS l WHERE l.merge_request_id = mr.id AND l.name = ?)", l)
	}
	if f.NoLabels {
		q = q.Where("NOT EXISTS (SELECT 1 FROM merge_request_labels AS l WHERE l.merge_request_id = mr.id)")
	}
	if f.SourceBranch != "" {
		q = q.Where("mr.source_branch = ?", f.SourceBranch)
	}
	if f.TargetBranch != "" {
		q = q.Where("mr.target_branch = ?", f.TargetBranch)
	}
	if f.CreatedAfter != nil {
		q = q.Where("mr.created_at >= ?", ts(*f.CreatedAfter))
	}
	if f.CreatedBefore != nil {
		q = q.Where("mr.created_at <= ?", ts(*f.CreatedBefore))
	}
	q = q.OrderExpr(orderBy(f.Ascending, col, "mr.id"))
	n, err := page(ctx, q, f.Page)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list merge requests: %w", err)
	}
	out, err := st.withLabels(ctx, db, rows)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list merge requests: %w", err)
	}
	return out, n, nil
}

// OpenOnBranch matches the source branch in projectID as the source
// project (the merge request may target another project) and the target
// branch in projectID as the target; ordered by ID.
func (st *mergeRequestStore) OpenOnBranch(ctx context.Context, projectID int64, branch string) ([]domain.MergeRequest, error) {
	db := st.s.Conn(ctx)
	rows := []mergeRequestRow{}
	err := st.query(db, &rows).
		Where("mr.state IN (?)", openStates).
		Where("((mr.source_project_id = ? AND mr.source_branch = ?) OR (mr.project_id = ? AND mr.target_branch = ?))",
			projectID, branch, projectID, branch).
		Order("mr.id").Scan(ctx)
	var out []domain.MergeRequest
	if err == nil {
		out, err = st.withLabels(ctx, db, rows)
	}
	if err != nil {
		return nil, fmt.Errorf("bunstore: open merge requests on %q of project %d: %w", branch, projectID, err)
	}
	return out, nil
}

// Locked orders by LockedAt, oldest first.
func (st *mergeRequestStore) Locked(ctx context.Context, before time.Time) ([]domain.MergeRequest, error) {
	db := st.s.Conn(ctx)
	rows := []mergeRequestRow{}
	err := st.query(db, &rows).
		Where("mr.locked_at IS NOT NULL AND mr.locked_at < ?", ts(before)).
		Order("mr.locked_at", "mr.id").Scan(ctx)
	var out []domain.MergeRequest
	if err == nil {
		out, err = st.withLabels(ctx, db, rows)
	}
	if err != nil {
		return nil, fmt.Errorf("bunstore: merge requests locked before %v: %w", before, err)
	}
	return out, nil
}

// labelRow is a row of merge_request_labels.
type labelRow struct {
	bun.BaseModel `bun:"table:merge_request_labels,alias:l"`

	MergeRequestID int64  `bun:"merge_request_id,pk"`
	Name           string `bun:"name,pk"`
}

// normLabels returns labels sorted and without repeats, nil when empty.
func normLabels(labels []string) []string {
	if len(labels) == 0 {
		return nil
	}
	out := dedupeStrings(labels)
	slices.Sort(out)
	return out
}

var _ ports.MergeRequestStore = (*mergeRequestStore)(nil)
