package bunstore

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// variableRow is a row of ci_variables, unique by (project_id, key).
type variableRow struct {
	bun.BaseModel `bun:"table:ci_variables,alias:v"`

	ID        int64  `bun:"id,pk,autoincrement"`
	ProjectID int64  `bun:"project_id"`
	Key       string `bun:"key"`
	Value     string `bun:"value"`
	Protected bool   `bun:"protected"`
	Masked    bool   `bun:"masked"`
	Public    bool   `bun:"public"`
}

func newVariableRow(id int64, v *domain.Variable) *variableRow {
	return &variableRow{ID: id, ProjectID: v.ProjectID, Key: v.Key, Value: v.Value,
		Protected: v.Protected, Masked: v.Masked, Public: v.Public}
}

func (r *variableRow) domain() domain.Variable {
	return domain.Variable{ProjectID: r.ProjectID, Key: r.Key, Value: r.Value,
		Protected: r.Protected, Masked: r.Masked, Public: r.Public}
}

var variableTable = tableOf("Variable", (*variableRow).domain)

type variableStore struct{ s *Store }

func errVariableTaken() error {
	return &core.Error{Kind: core.ErrConflict, Msg: "Key has already been taken",
		Fields: map[string][]string{"key": {"has already been taken"}}}
}

var variableTaken = takenErr("", errVariableTaken, "Project")

func (st *variableStore) List(ctx context.Context, projectID int64, p domain.Page) ([]domain.Variable, int, error) {
	out, n, err := variableTable.page(ctx, st.s.Conn(ctx).NewSelect().Where("v.project_id = ?", projectID).OrderExpr("v.key"), p)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list variables of project %d: %w", projectID, err)
	}
	return out, n, nil
}

func (st *variableStore) Get(ctx context.Context, projectID int64, key string) (*domain.Variable, error) {
	v, err := variableTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("v.project_id = ? AND v.key = ?", projectID, key))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get variable %q of project %d: %w", key, projectID, err)
	}
	return v, nil
}

func (st *variableStore) Create(ctx context.Context, v *domain.Variable) error {
	if err := st.s.insert(ctx, newVariableRow(0, v), variableTaken, "id"); err != nil {
		return fmt.Errorf("bunstore: create variable %q in project %d: %w", v.Key, v.ProjectID, err)
	}
	return nil
}

// Update saves every field but ProjectID; a key renamed onto another's is
// core.ErrConflict.
func (st *variableStore) Update(ctx context.Context, projectID int64, key string, fn func(v *domain.Variable) error) (*domain.Variable, error) {
	save := func(ctx context.Context, db bun.IDB, old, v *domain.Variable) (*domain.Variable, error) {
		v.ProjectID = old.ProjectID
		row := newVariableRow(0, v)
		_, err := db.NewUpdate().Model(row).ExcludeColumn("id").
			Where("project_id = ? AND key = ?", projectID, key).Exec(ctx)
		if err != nil {
			return nil, variableTaken(err)
		}
		out := row.domain()
		return &out, nil
	}
	load := variableTable.locked(st.s, "v.project_id = ? AND v.key = ?", projectID, key)
	return modify(ctx, st.s, load, fn, save, func(err error) error {
		return fmt.Errorf("bunstore: update variable %q of project %d: %w", key, projectID, err)
	})
}

func (st *variableStore) Delete(ctx context.Context, projectID int64, key string) error {
	if err := variableTable.deleteOne(ctx, st.s.Conn(ctx), "project_id = ? AND key = ?", projectID, key); err != nil {
		return fmt.Errorf("bunstore: delete variable %q of project %d: %w", key, projectID, err)
	}
	return nil
}

var _ ports.VariableStore = (*variableStore)(nil)
