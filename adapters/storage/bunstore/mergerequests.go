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
	// Time tracking (migration 0018) is written only by timeTrackingStore.
	TimeEstimate   int64 `bun:"time_estimate,scanonly"`
	TotalTimeSpent int64 `bun:"total_time_spent,scanonly"`
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
		TimeStats:                 domain.TimeStats{TimeEstimate: r.TimeEstimate, TotalTimeSpent: r.TotalTimeSpent},
		CreatedAt:                 r.CreatedAt.UTC(),
		UpdatedAt:                 r.UpdatedAt.UTC(),
		MergedAt:                  utcPtr(r.MergedAt),
		ClosedAt:                  utcPtr(r.ClosedAt),
	}
}

// openStates are the states the one-open-merge-request rule covers; they
// match the predicate of merge_requests_open_key.
var openStates = bun.List([]string{string(domain.MROpened), string(domain.MRReopened)})

// mergeRequestKind selects the row's stored columns with ExcludeColumn()
// (not mr.*, whose unused vote columns would clash with the computed ones).
var mergeRequestKind = issuable[mergeRequestRow, domain.MergeRequest]{
	typ: domain.TargetMergeRequest, what: "Merge Request", alias: "mr", iids: "merge_request_iids", labels: mergeRequestLabelLinks,
	columns: func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.ExcludeColumn().ColumnExpr("mr.time_estimate, mr.total_time_spent")
	},
	id:     func(r *mergeRequestRow) int64 { return r.ID },
	domain: (*mergeRequestRow).domain,
}

type mergeRequestStore struct{ s *Store }

// Create takes the next IID from the project's counter row and inserts the
// merge request and its labels in one transaction (issuable.create). Empty
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
	m.CreatedAt, m.UpdatedAt = created(m.CreatedAt, m.UpdatedAt)
	labels := normLabels(m.Labels)
	row := newMergeRequestRow(m)
	row.ID, row.UserNotesCount, row.Upvotes, row.Downvotes = 0, 0, 0, 0
	err := mergeRequestKind.create(ctx, st.s, m.ProjectID, row, &row.IID, labels, func(ctx context.Context, _ bun.IDB) error {
		if err := st.s.insert(ctx, row, nil, "id"); err != nil {
			return st.writeErr(ctx, err, row)
		}
		return nil
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
	m, err := mergeRequestKind.one(ctx, st.s, st.s.Conn(ctx), false, "mr.project_id = ? AND mr.iid = ?", projectID, iid)
	if err != nil {
		return nil, fmt.Errorf("bunstore: get merge request !%d of project %d: %w", iid, projectID, err)
	}
	return m, nil
}

func (st *mergeRequestStore) GetByID(ctx context.Context, id int64) (*domain.MergeRequest, error) {
	m, err := mergeRequestKind.one(ctx, st.s, st.s.Conn(ctx), false, "mr.id = ?", id)
	if err != nil {
		return nil, fmt.Errorf("bunstore: get merge request %d: %w", id, err)
	}
	return m, nil
}

// GetMany orders by ID; unknown IDs are skipped.
func (st *mergeRequestStore) GetMany(ctx context.Context, ids []int64) ([]domain.MergeRequest, error) {
	if len(ids) == 0 {
		return []domain.MergeRequest{}, nil
	}
	out, err := mergeRequestKind.find(ctx, st.s.Conn(ctx), "mr.id", "mr.id IN (?)", bun.List(dedupeIDs(ids)))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get %d merge requests: %w", len(ids), err)
	}
	return out, nil
}

// Update locks the row, applies fn and saves every column, replacing the
// labels when they changed. ID, IID and the target project stay;
// UserNotesCount and the votes are read-only. core.ErrNotFound when absent; fn's error is
// returned as is.
func (st *mergeRequestStore) Update(ctx context.Context, projectID, iid int64, fn func(m *domain.MergeRequest) error) (*domain.MergeRequest, error) {
	load := func(ctx context.Context, db bun.IDB) (*domain.MergeRequest, error) {
		return mergeRequestKind.one(ctx, st.s, db, true, "mr.project_id = ? AND mr.iid = ?", projectID, iid)
	}
	edit := func(m *domain.MergeRequest) error {
		m.Labels = append([]string(nil), m.Labels...)
		return fn(m)
	}
	save := func(ctx context.Context, db bun.IDB, old, m *domain.MergeRequest) (*domain.MergeRequest, error) {
		m.ID, m.IID, m.ProjectID, m.TargetProjectID = old.ID, old.IID, old.ProjectID, old.TargetProjectID
		m.UserNotesCount, m.Upvotes, m.Downvotes = old.UserNotesCount, old.Upvotes, old.Downvotes
		m.UpdatedAt = edited(m.UpdatedAt, old.UpdatedAt)
		labels := normLabels(m.Labels)
		row := newMergeRequestRow(m)
		row.TimeEstimate, row.TotalTimeSpent = old.TimeStats.TimeEstimate, old.TimeStats.TotalTimeSpent
		err := st.s.guarded(ctx, func(ctx context.Context, db bun.IDB) error {
			_, err := db.NewUpdate().Model(row).WherePK().Exec(ctx)
			return err
		})
		if err != nil {
			return nil, st.writeErr(ctx, err, row)
		}
		if err := mergeRequestLabelLinks.update(ctx, db, row.ID, old.Labels, labels); err != nil {
			return nil, err
		}
		out := row.domain(labels)
		return &out, nil
	}
	return modify(ctx, st.s, load, edit, save, func(err error) error {
		return fmt.Errorf("bunstore: update merge request !%d of project %d: %w", iid, projectID, err)
	})
}

// Delete removes the merge request; its labels go by ON DELETE CASCADE,
// and its notes (with their awards), awards, todos and subscriptions,
// which have no foreign key to it, in the same transaction.
func (st *mergeRequestStore) Delete(ctx context.Context, projectID, iid int64) error {
	if err := mergeRequestKind.delete(ctx, st.s, projectID, iid); err != nil {
		return fmt.Errorf("bunstore: delete merge request !%d of project %d: %w", iid, projectID, err)
	}
	return nil
}

// List applies every filter of f in the SQL and costs three queries (the
// count, the page, its labels) whatever the page size. The read scope and
// EnabledOnly apply only without a project. An unknown OrderBy is
// core.ErrInvalid.
func (st *mergeRequestStore) List(ctx context.Context, f domain.MergeRequestFilter) ([]domain.MergeRequest, int, error) {
	states := make([]string, len(f.States))
	for i, s := range f.States {
		states[i] = string(s)
	}
	common := issuableFilter{IIDs: f.IIDs, States: states, AuthorID: f.AuthorID, AssigneeID: f.AssigneeID,
		MilestoneIDs: f.MilestoneIDs, NoMilestone: f.NoMilestone, Labels: f.Labels, NoLabels: f.NoLabels,
		CreatedAfter: f.CreatedAfter, CreatedBefore: f.CreatedBefore, OrderBy: f.OrderBy, Ascending: f.Ascending, Page: f.Page}
	db := st.s.Conn(ctx)
	out, n, err := mergeRequestKind.list(ctx, db, common, func(q *bun.SelectQuery) *bun.SelectQuery {
		switch {
		case f.ProjectID != 0:
			q = q.Where("mr.project_id = ?", f.ProjectID)
		case !f.Readable.All || f.EnabledOnly:
			readable := whereReadable(db.NewSelect().Table("projects").Column("id"), f.Readable, "")
			if f.EnabledOnly {
				readable = readable.Where("merge_requests_enabled = ?", true)
			}
			q = q.Where("mr.project_id IN (?)", readable)
		}
		q = whereSet(q, "mr.source_branch = ?", f.SourceBranch)
		return whereSet(q, "mr.target_branch = ?", f.TargetBranch)
	})
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list merge requests: %w", err)
	}
	return out, n, nil
}

// OpenOnBranch matches the source branch in projectID as the source
// project (the merge request may target another project) and the target
// branch in projectID as the target; ordered by ID.
func (st *mergeRequestStore) OpenOnBranch(ctx context.Context, projectID int64, branch string) ([]domain.MergeRequest, error) {
	out, err := mergeRequestKind.find(ctx, st.s.Conn(ctx), "mr.id",
		"mr.state IN (?) AND ((mr.source_project_id = ? AND mr.source_branch = ?) OR (mr.project_id = ? AND mr.target_branch = ?))",
		openStates, projectID, branch, projectID, branch)
	if err != nil {
		return nil, fmt.Errorf("bunstore: open merge requests on %q of project %d: %w", branch, projectID, err)
	}
	return out, nil
}

// Locked orders by LockedAt, oldest first.
func (st *mergeRequestStore) Locked(ctx context.Context, before time.Time) ([]domain.MergeRequest, error) {
	out, err := mergeRequestKind.find(ctx, st.s.Conn(ctx), "mr.locked_at, mr.id", "mr.locked_at IS NOT NULL AND mr.locked_at < ?", ts(before))
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
