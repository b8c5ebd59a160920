package bunstore

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// deployKeyRow is a deploy key (migration 0015 says why deploy keys have a
// table of their own and share key_fingerprints with users' keys).
type deployKeyRow struct {
	bun.BaseModel `bun:"table:deploy_keys,alias:dk"`

	ID int64 `bun:"id,pk,autoincrement"`
	// UserID is NULL once the user who added the key is deleted.
	UserID      *int64    `bun:"user_id"`
	Title       string    `bun:"title"`
	Key         string    `bun:"key"`
	Fingerprint string    `bun:"fingerprint"`
	CanPush     bool      `bun:"can_push"`
	CreatedAt   time.Time `bun:"created_at"`
}

func newDeployKeyRow(k *domain.DeployKey) *deployKeyRow {
	r := &deployKeyRow{ID: k.ID, Title: k.Title, Key: k.Key, Fingerprint: k.Fingerprint, CanPush: k.CanPush, CreatedAt: orNow(k.CreatedAt)}
	if k.UserID != 0 {
		r.UserID = &k.UserID
	}
	return r
}

func (r *deployKeyRow) domain() domain.DeployKey {
	k := domain.DeployKey{
		ID:          r.ID,
		Title:       r.Title,
		Key:         r.Key,
		Fingerprint: r.Fingerprint,
		CanPush:     r.CanPush,
		CreatedAt:   r.CreatedAt.UTC(),
	}
	if r.UserID != nil {
		k.UserID = *r.UserID
	}
	return k
}

var deployKeyTable = tableOf("Deploy Key", (*deployKeyRow).domain)

// deployKeyProjectRow enables a deploy key for a project.
type deployKeyProjectRow struct {
	bun.BaseModel `bun:"table:deploy_keys_projects,alias:dkp"`

	DeployKeyID int64     `bun:"deploy_key_id,pk"`
	ProjectID   int64     `bun:"project_id,pk"`
	CreatedAt   time.Time `bun:"created_at"`
}

var deployKeyProjectTable = tableOf("Deploy Key", func(r *deployKeyProjectRow) int64 { return r.ProjectID })

// fingerprintRow takes a fingerprint for one key, a user's (SSHKeyID) or a
// deploy key (DeployKeyID); its unique index is what keeps a fingerprint
// to one key across both tables.
type fingerprintRow struct {
	bun.BaseModel `bun:"table:key_fingerprints"`

	Fingerprint string `bun:"fingerprint"`
	SSHKeyID    *int64 `bun:"ssh_key_id"`
	DeployKeyID *int64 `bun:"deploy_key_id"`
}

type deployKeyStore struct{ s *Store }

func (st *deployKeyStore) Create(ctx context.Context, k *domain.DeployKey, projectID int64) error {
	row := newDeployKeyRow(k)
	row.ID = 0
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		if err := st.s.insert(ctx, row, parentErr("User"), "id"); err != nil {
			return err
		}
		if err := st.s.insert(ctx, &fingerprintRow{Fingerprint: row.Fingerprint, DeployKeyID: &row.ID}, parentErr("Deploy Key")); err != nil {
			return err
		}
		link := &deployKeyProjectRow{DeployKeyID: row.ID, ProjectID: projectID, CreatedAt: row.CreatedAt}
		return st.s.insert(ctx, link, parentErr("Project"))
	})
	if err != nil {
		return fmt.Errorf("bunstore: create deploy key for project %d: %w", projectID, err)
	}
	*k = row.domain()
	return nil
}

func (st *deployKeyStore) Get(ctx context.Context, id int64) (*domain.DeployKey, error) {
	k, err := deployKeyTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("dk.id = ?", id))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get deploy key %d: %w", id, err)
	}
	return k, nil
}

func (st *deployKeyStore) ByFingerprint(ctx context.Context, fingerprint string) (*domain.DeployKey, error) {
	k, err := deployKeyTable.get(ctx, st.s.Conn(ctx).NewSelect().Where("dk.fingerprint = ?", fingerprint))
	if err != nil {
		return nil, fmt.Errorf("bunstore: deploy key with fingerprint %s: %w", fingerprint, err)
	}
	return k, nil
}

func (st *deployKeyStore) List(ctx context.Context, p domain.Page) ([]domain.DeployKey, int, error) {
	keys, n, err := deployKeyTable.page(ctx, st.s.Conn(ctx).NewSelect().OrderExpr("dk.id"), p)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list deploy keys: %w", err)
	}
	return keys, n, nil
}

// inProject selects the keys enabled for the project.
func (st *deployKeyStore) inProject(ctx context.Context, projectID int64) *bun.SelectQuery {
	return st.s.Conn(ctx).NewSelect().
		Join("JOIN deploy_keys_projects AS dkp ON dkp.deploy_key_id = dk.id").
		Where("dkp.project_id = ?", projectID)
}

func (st *deployKeyStore) ListByProject(ctx context.Context, projectID int64, p domain.Page) ([]domain.DeployKey, int, error) {
	keys, n, err := deployKeyTable.page(ctx, st.inProject(ctx, projectID).OrderExpr("dk.id"), p)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list deploy keys of project %d: %w", projectID, err)
	}
	return keys, n, nil
}

func (st *deployKeyStore) InProject(ctx context.Context, projectID, id int64) (*domain.DeployKey, error) {
	k, err := deployKeyTable.get(ctx, st.inProject(ctx, projectID).Where("dk.id = ?", id))
	if err != nil {
		return nil, fmt.Errorf("bunstore: deploy key %d of project %d: %w", id, projectID, err)
	}
	return k, nil
}

// lock reads the key under its row lock (Postgres), so that Enable and
// Disable of one key run one after the other: a Disable that deletes the
// orphaned key cannot race an Enable that gives it a project.
func (st *deployKeyStore) lock(ctx context.Context, db bun.IDB, id int64) error {
	_, err := deployKeyTable.locked(st.s, "dk.id = ?", id)(ctx, db)
	return err
}

func (st *deployKeyStore) Enable(ctx context.Context, projectID, id int64) error {
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		if err := st.lock(ctx, db, id); err != nil {
			return err
		}
		link := &deployKeyProjectRow{DeployKeyID: id, ProjectID: projectID, CreatedAt: now()}
		_, err := db.NewInsert().Model(link).On("CONFLICT DO NOTHING").Exec(ctx)
		return writeErr(err, "Project")
	})
	if err != nil {
		return fmt.Errorf("bunstore: enable deploy key %d for project %d: %w", id, projectID, err)
	}
	return nil
}

func (st *deployKeyStore) Disable(ctx context.Context, projectID, id int64) error {
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		if err := st.lock(ctx, db, id); err != nil {
			return err
		}
		if err := deployKeyProjectTable.deleteOne(ctx, db, "deploy_key_id = ? AND project_id = ?", id, projectID); err != nil {
			return err
		}
		// GitLab destroys a deploy key with its last project. Its
		// fingerprint row goes with it (ON DELETE CASCADE).
		_, err := db.NewDelete().Model((*deployKeyRow)(nil)).
			Where("id = ?", id).
			Where("NOT EXISTS (SELECT 1 FROM deploy_keys_projects WHERE deploy_key_id = ?)", id).
			Exec(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("bunstore: disable deploy key %d for project %d: %w", id, projectID, err)
	}
	return nil
}

func (st *deployKeyStore) Update(ctx context.Context, id int64, fn func(*domain.DeployKey) error) (*domain.DeployKey, error) {
	save := func(ctx context.Context, db bun.IDB, old, k *domain.DeployKey) (*domain.DeployKey, error) {
		// Only the title and can_push change; the key is what it was.
		k.ID, k.UserID, k.Key, k.Fingerprint, k.CreatedAt = old.ID, old.UserID, old.Key, old.Fingerprint, old.CreatedAt
		return deployKeyTable.save(ctx, db, newDeployKeyRow(k), nil)
	}
	load := deployKeyTable.locked(st.s, "dk.id = ?", id)
	return modify(ctx, st.s, load, fn, save, func(err error) error {
		return fmt.Errorf("bunstore: update deploy key %d: %w", id, err)
	})
}

func (st *deployKeyStore) Projects(ctx context.Context, id int64) ([]int64, error) {
	ids := []int64{}
	err := st.s.Conn(ctx).NewSelect().Model((*deployKeyProjectRow)(nil)).Column("project_id").
		Where("deploy_key_id = ?", id).Order("project_id").Scan(ctx, &ids)
	if err != nil {
		return nil, fmt.Errorf("bunstore: projects of deploy key %d: %w", id, err)
	}
	return ids, nil
}

var _ ports.DeployKeyStore = (*deployKeyStore)(nil)
