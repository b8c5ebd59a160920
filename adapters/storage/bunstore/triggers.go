package bunstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// triggerRow is a row of ci_triggers (migration 0020).
type triggerRow struct {
	bun.BaseModel `bun:"table:ci_triggers,alias:tr"`

	ID          int64      `bun:"id,pk,autoincrement"`
	ProjectID   int64      `bun:"project_id"`
	OwnerID     *int64     `bun:"owner_id"`
	Description string     `bun:"description"`
	TokenDigest string     `bun:"token_digest"`
	TokenHint   string     `bun:"token_hint"`
	CreatedAt   time.Time  `bun:"created_at"`
	UpdatedAt   time.Time  `bun:"updated_at"`
	LastUsedAt  *time.Time `bun:"last_used_at"`
}

func newTriggerRow(t *domain.Trigger) *triggerRow {
	c, u := created(t.CreatedAt, t.UpdatedAt)
	return &triggerRow{ID: t.ID, ProjectID: t.ProjectID, OwnerID: t.OwnerID, Description: t.Description,
		TokenDigest: t.TokenDigest, TokenHint: t.TokenHint, CreatedAt: c, UpdatedAt: u, LastUsedAt: tsPtr(t.LastUsedAt)}
}

func (r *triggerRow) domain() domain.Trigger {
	return domain.Trigger{ID: r.ID, ProjectID: r.ProjectID, OwnerID: r.OwnerID, Description: r.Description,
		TokenDigest: r.TokenDigest, TokenHint: r.TokenHint, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		LastUsedAt: utcPtr(r.LastUsedAt)}
}

var triggerTable = tableOf("Trigger", (*triggerRow).domain)

// triggerRequestRow is a row of ci_trigger_requests.
type triggerRequestRow struct {
	bun.BaseModel `bun:"table:ci_trigger_requests,alias:treq"`

	ID         int64     `bun:"id,pk,autoincrement"`
	TriggerID  *int64    `bun:"trigger_id"`
	PipelineID int64     `bun:"pipeline_id"`
	Variables  string    `bun:"variables"`
	CreatedAt  time.Time `bun:"created_at"`
}

// triggerVariableJSON is how a request's variables are stored.
type triggerVariableJSON struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

func (r *triggerRequestRow) domain() domain.TriggerRequest {
	out := domain.TriggerRequest{ID: r.ID, TriggerID: r.TriggerID, PipelineID: r.PipelineID, CreatedAt: r.CreatedAt.UTC()}
	var vars []triggerVariableJSON
	// Rows are only written by Record; a damaged value reads as none.
	_ = json.Unmarshal([]byte(r.Variables), &vars)
	for _, v := range vars {
		out.Variables = append(out.Variables, domain.TriggerVariable{Key: v.Key, Value: v.Value})
	}
	return out
}

var triggerRequestTable = tableOf("Trigger Request", (*triggerRequestRow).domain)

type triggerStore struct{ s *Store }

func errTriggerTaken() error {
	return &core.Error{Kind: core.ErrConflict, Msg: "Token has already been taken",
		Fields: map[string][]string{"token": {"has already been taken"}}}
}

var triggerTaken = takenErr("", errTriggerTaken, "Project")

func (st *triggerStore) Create(ctx context.Context, t *domain.Trigger) error {
	row := newTriggerRow(t)
	row.ID = 0
	if err := st.s.insert(ctx, row, triggerTaken, "id"); err != nil {
		return fmt.Errorf("bunstore: create trigger in project %d: %w", t.ProjectID, err)
	}
	*t = row.domain()
	return nil
}

func (st *triggerStore) Get(ctx context.Context, projectID, id int64) (*domain.Trigger, error) {
	t, err := triggerTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("tr.project_id = ? AND tr.id = ?", projectID, id))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get trigger %d of project %d: %w", id, projectID, err)
	}
	return t, nil
}

func (st *triggerStore) GetByToken(ctx context.Context, digest string) (*domain.Trigger, error) {
	t, err := triggerTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("tr.token_digest = ?", digest))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get trigger by token: %w", err)
	}
	return t, nil
}

func (st *triggerStore) List(ctx context.Context, projectID int64, p domain.Page) ([]domain.Trigger, int, error) {
	out, n, err := triggerTable.page(ctx, st.s.Conn(ctx).NewSelect().Where("tr.project_id = ?", projectID).OrderExpr("tr.id"), p)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list triggers of project %d: %w", projectID, err)
	}
	return out, n, nil
}

func (st *triggerStore) Update(ctx context.Context, projectID, id int64, fn func(t *domain.Trigger) error) (*domain.Trigger, error) {
	save := func(ctx context.Context, db bun.IDB, old, t *domain.Trigger) (*domain.Trigger, error) {
		row := newTriggerRow(old)
		row.Description, row.OwnerID, row.LastUsedAt = t.Description, t.OwnerID, tsPtr(t.LastUsedAt)
		row.UpdatedAt = ts(edited(t.UpdatedAt, old.UpdatedAt))
		_, err := db.NewUpdate().Model(row).Column("description", "owner_id", "updated_at", "last_used_at").WherePK().Exec(ctx)
		if err != nil {
			return nil, writeErr(err, "User")
		}
		out := row.domain()
		return &out, nil
	}
	load := triggerTable.locked(st.s, "tr.project_id = ? AND tr.id = ?", projectID, id)
	return modify(ctx, st.s, load, fn, save, func(err error) error {
		return fmt.Errorf("bunstore: update trigger %d of project %d: %w", id, projectID, err)
	})
}

func (st *triggerStore) Delete(ctx context.Context, projectID, id int64) error {
	if err := triggerTable.deleteOne(ctx, st.s.Conn(ctx), "project_id = ? AND id = ?", projectID, id); err != nil {
		return fmt.Errorf("bunstore: delete trigger %d of project %d: %w", id, projectID, err)
	}
	return nil
}

func (st *triggerStore) Record(ctx context.Context, r *domain.TriggerRequest) error {
	vars := make([]triggerVariableJSON, 0, len(r.Variables))
	for _, v := range r.Variables {
		vars = append(vars, triggerVariableJSON{Key: v.Key, Value: v.Value})
	}
	b, err := json.Marshal(vars)
	if err != nil {
		return fmt.Errorf("bunstore: trigger variables: %w", err)
	}
	row := &triggerRequestRow{TriggerID: r.TriggerID, PipelineID: r.PipelineID, Variables: string(b), CreatedAt: orNow(r.CreatedAt)}
	if err := st.s.insert(ctx, row, parentErr("Pipeline"), "id"); err != nil {
		return fmt.Errorf("bunstore: record trigger request of pipeline %d: %w", r.PipelineID, err)
	}
	*r = row.domain()
	return nil
}

func (st *triggerStore) OfPipeline(ctx context.Context, pipelineID int64) (*domain.TriggerRequest, error) {
	r, err := triggerRequestTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("treq.pipeline_id = ?", pipelineID))
	if err != nil {
		return nil, fmt.Errorf("bunstore: trigger request of pipeline %d: %w", pipelineID, err)
	}
	return r, nil
}

var _ ports.TriggerStore = (*triggerStore)(nil)
