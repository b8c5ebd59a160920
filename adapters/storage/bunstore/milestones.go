package bunstore

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// milestoneRow is a row of milestones; dates are UTC midnights.
type milestoneRow struct {
	bun.BaseModel `bun:"table:milestones,alias:ms"`

	ID          int64      `bun:"id,pk,autoincrement"`
	IID         int64      `bun:"iid"`
	ProjectID   int64      `bun:"project_id"`
	Title       string     `bun:"title"`
	Description string     `bun:"description"`
	State       string     `bun:"state"`
	DueDate     *time.Time `bun:"due_date"`
	StartDate   *time.Time `bun:"start_date"`
	CreatedAt   time.Time  `bun:"created_at"`
	UpdatedAt   time.Time  `bun:"updated_at"`
}

func newMilestoneRow(m *domain.Milestone) *milestoneRow {
	return &milestoneRow{
		ID:          m.ID,
		IID:         m.IID,
		ProjectID:   m.ProjectID,
		Title:       m.Title,
		Description: m.Description,
		State:       m.State,
		DueDate:     datePtr(m.DueDate),
		StartDate:   datePtr(m.StartDate),
		CreatedAt:   ts(m.CreatedAt),
		UpdatedAt:   ts(m.UpdatedAt),
	}
}

func (r *milestoneRow) domain() domain.Milestone {
	return domain.Milestone{
		ID:          r.ID,
		IID:         r.IID,
		ProjectID:   r.ProjectID,
		Title:       r.Title,
		Description: r.Description,
		State:       r.State,
		DueDate:     utcPtr(r.DueDate),
		StartDate:   utcPtr(r.StartDate),
		CreatedAt:   r.CreatedAt.UTC(),
		UpdatedAt:   r.UpdatedAt.UTC(),
	}
}

var milestoneTable = tableOf("Milestone", (*milestoneRow).domain)

type milestoneStore struct{ s *Store }

// milestoneErr maps a write error: the only unique index a write can break
// (IIDs come from the counter) is the title's.
var milestoneErr = takenErr("title", func() error { return core.Conflict("Milestone already exists") }, "Project")

// Create takes the next IID from the project's counter row in the
// transaction that inserts the milestone. An empty State is active; a zero
// UpdatedAt is CreatedAt.
func (st *milestoneStore) Create(ctx context.Context, m *domain.Milestone) error {
	if m.State == "" {
		m.State = domain.MilestoneActive
	}
	m.CreatedAt, m.UpdatedAt = created(m.CreatedAt, m.UpdatedAt)
	row := newMilestoneRow(m)
	row.ID = 0
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		iid, err := nextIID(ctx, db, "milestone_iids", m.ProjectID)
		if err != nil {
			return err
		}
		row.IID = iid
		_, err = db.NewInsert().Model(row).Returning("id").Exec(ctx)
		return milestoneErr(err)
	})
	if err != nil {
		return fmt.Errorf("bunstore: create milestone in project %d: %w", m.ProjectID, err)
	}
	*m = row.domain()
	return nil
}

func (st *milestoneStore) Get(ctx context.Context, projectID, id int64) (*domain.Milestone, error) {
	m, err := milestoneTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("ms.project_id = ? AND ms.id = ?", projectID, id))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get milestone %d of project %d: %w", id, projectID, err)
	}
	return m, nil
}

// GetMany orders by ID; unknown IDs are skipped.
func (st *milestoneStore) GetMany(ctx context.Context, ids []int64) ([]domain.Milestone, error) {
	out, err := milestoneTable.byIDs(ctx, st.s.Conn(ctx), "ms.id", ids)
	if err != nil {
		return nil, fmt.Errorf("bunstore: get %d milestones: %w", len(ids), err)
	}
	return out, nil
}

// IDsByTitle matches the title exactly (at most one, titles being unique).
func (st *milestoneStore) IDsByTitle(ctx context.Context, projectID int64, title string) ([]int64, error) {
	ids := []int64{}
	err := st.s.Conn(ctx).NewSelect().Model((*milestoneRow)(nil)).Column("ms.id").
		Where("ms.project_id = ? AND ms.title = ?", projectID, title).Order("ms.id").Scan(ctx, &ids)
	if err != nil {
		return nil, fmt.Errorf("bunstore: milestones titled %q in project %d: %w", title, projectID, err)
	}
	return ids, nil
}

// Update locks the row, applies fn and saves it. ID, IID, the project and
// CreatedAt stay; UpdatedAt is now unless fn changed it. fn's error is
// returned as is.
func (st *milestoneStore) Update(ctx context.Context, projectID, id int64, fn func(m *domain.Milestone) error) (*domain.Milestone, error) {
	save := func(ctx context.Context, db bun.IDB, old, m *domain.Milestone) (*domain.Milestone, error) {
		m.ID, m.IID, m.ProjectID, m.CreatedAt = old.ID, old.IID, old.ProjectID, old.CreatedAt
		m.UpdatedAt = edited(m.UpdatedAt, old.UpdatedAt)
		return milestoneTable.save(ctx, db, newMilestoneRow(m), milestoneErr)
	}
	load := milestoneTable.locked(st.s, "ms.project_id = ? AND ms.id = ?", projectID, id)
	return modify(ctx, st.s, load, fn, save, func(err error) error {
		return fmt.Errorf("bunstore: update milestone %d of project %d: %w", id, projectID, err)
	})
}

// Delete clears the milestone from issues and merge requests (which have
// no foreign key to it) and removes it, in one transaction.
func (st *milestoneStore) Delete(ctx context.Context, projectID, id int64) error {
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		if err := milestoneTable.deleteOne(ctx, db, "project_id = ? AND id = ?", projectID, id); err != nil {
			return err
		}
		for _, table := range []string{"issues", "merge_requests"} {
			if _, err := db.NewUpdate().Table(table).Set("milestone_id = NULL").Where("milestone_id = ?", id).Exec(ctx); err != nil {
				return fmt.Errorf("%s: %w", table, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("bunstore: delete milestone %d of project %d: %w", id, projectID, err)
	}
	return nil
}

// List orders by due date, undated last, then ID, and costs the count and
// the page.
func (st *milestoneStore) List(ctx context.Context, f domain.MilestoneFilter) ([]domain.Milestone, int, error) {
	q := st.s.Conn(ctx).NewSelect().Where("ms.project_id = ?", f.ProjectID)
	if len(f.IIDs) > 0 {
		q = q.Where("ms.iid IN (?)", bun.List(dedupeIDs(f.IIDs)))
	}
	q = whereSet(q, "ms.state = ?", f.State)
	q = whereSet(q, "ms.title = ?", f.Title)
	q = whereContains(q, f.Search, "ms.title", "ms.description")
	q = q.OrderExpr("ms.due_date IS NULL, ms.due_date, ms.id")
	out, n, err := milestoneTable.page(ctx, q, f.Page)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list milestones of project %d: %w", f.ProjectID, err)
	}
	return out, n, nil
}

var _ ports.MilestoneStore = (*milestoneStore)(nil)
