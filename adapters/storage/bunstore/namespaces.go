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

// namespaceRow is a row of namespaces: personal namespaces (kind user,
// owner_id set) and groups (kind group, nested through parent_id).
// full_path is the slash-joined chain of paths from the top, kept by the
// store: Create computes it, Update rewrites it for the whole subtree.
type namespaceRow struct {
	bun.BaseModel `bun:"table:namespaces,alias:n"`

	ID                   int64     `bun:"id,pk,autoincrement"`
	Kind                 string    `bun:"kind"`
	Name                 string    `bun:"name"`
	Path                 string    `bun:"path"`
	FullPath             string    `bun:"full_path"`
	ParentID             *int64    `bun:"parent_id"`
	OwnerID              *int64    `bun:"owner_id"`
	Description          string    `bun:"description"`
	Visibility           string    `bun:"visibility"`
	LFSEnabled           bool      `bun:"lfs_enabled"`
	RequestAccessEnabled bool      `bun:"request_access_enabled"`
	AvatarURL            string    `bun:"avatar_url"`
	CreatedAt            time.Time `bun:"created_at"`
	UpdatedAt            time.Time `bun:"updated_at"`
}

func newNamespaceRow(n *domain.Namespace) *namespaceRow {
	return &namespaceRow{
		ID:                   n.ID,
		Kind:                 string(n.Kind),
		Name:                 n.Name,
		Path:                 n.Path,
		FullPath:             n.FullPath,
		ParentID:             n.ParentID,
		OwnerID:              n.OwnerID,
		Description:          n.Description,
		Visibility:           string(n.Visibility),
		LFSEnabled:           n.LFSEnabled,
		RequestAccessEnabled: n.RequestAccessEnabled,
		AvatarURL:            n.AvatarURL,
		CreatedAt:            ts(n.CreatedAt),
		UpdatedAt:            ts(n.UpdatedAt),
	}
}

func (r *namespaceRow) domain() domain.Namespace {
	return domain.Namespace{
		ID:                   r.ID,
		Kind:                 domain.NamespaceKind(r.Kind),
		Name:                 r.Name,
		Path:                 r.Path,
		FullPath:             r.FullPath,
		ParentID:             r.ParentID,
		OwnerID:              r.OwnerID,
		Description:          r.Description,
		Visibility:           domain.Visibility(r.Visibility),
		LFSEnabled:           r.LFSEnabled,
		RequestAccessEnabled: r.RequestAccessEnabled,
		AvatarURL:            r.AvatarURL,
		CreatedAt:            r.CreatedAt.UTC(),
		UpdatedAt:            r.UpdatedAt.UTC(),
	}
}

var namespaceTable = tableOf("Namespace", (*namespaceRow).domain)

// Recursive queries over the namespace tree; they run unchanged on SQLite
// and Postgres. UNION (not UNION ALL) ends the walk even on a corrupt cycle.
const (
	// sqlDescendants: the IDs of every namespace below the ones in ?.
	sqlDescendants = `WITH RECURSIVE tree(id) AS (
	SELECT id FROM namespaces WHERE parent_id IN (?)
	UNION
	SELECT c.id FROM namespaces c JOIN tree ON c.parent_id = tree.id
)`
	// sqlAncestors: the IDs of every namespace above the ones in ?.
	sqlAncestors = `WITH RECURSIVE up(id) AS (
	SELECT parent_id FROM namespaces WHERE id IN (?) AND parent_id IS NOT NULL
	UNION
	SELECT n.parent_id FROM namespaces n JOIN up ON n.id = up.id WHERE n.parent_id IS NOT NULL
)`
)

type namespaceStore struct{ s *Store }

// Create computes FullPath from the parent, which it reads under a share
// lock on Postgres so that a concurrent rename of the parent either sees the
// new child or happens first.
func (st *namespaceStore) Create(ctx context.Context, n *domain.Namespace) error {
	n.CreatedAt, n.UpdatedAt = created(n.CreatedAt, n.UpdatedAt)
	row := newNamespaceRow(n)
	row.ID = 0
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		full, err := st.fullPath(ctx, db, row.ParentID, row.Path)
		if err != nil {
			return err
		}
		row.FullPath = full
		_, err = db.NewInsert().Model(row).Returning("id").Exec(ctx)
		return writeErr(err, "User")
	})
	if err != nil {
		return fmt.Errorf("bunstore: create namespace %q: %w", n.Path, err)
	}
	*n = row.domain()
	return nil
}

// fullPath is path under the parent (read under a share lock on Postgres),
// which must exist and be a group.
func (st *namespaceStore) fullPath(ctx context.Context, db bun.IDB, parentID *int64, path string) (string, error) {
	if parentID == nil {
		return path, nil
	}
	parent := new(namespaceRow)
	q := db.NewSelect().Model(parent).Column("id", "kind", "full_path").Where("id = ?", *parentID)
	if st.s.rowLocks {
		q = q.For("SHARE")
	}
	if err := q.Scan(ctx); err != nil {
		return "", readErr(err, "Parent namespace")
	}
	if parent.Kind != string(domain.NamespaceGroup) {
		return "", core.BadRequest("The parent namespace must be a group")
	}
	return parent.FullPath + "/" + path, nil
}

func (st *namespaceStore) Get(ctx context.Context, id int64) (*domain.Namespace, error) {
	return st.getWhere(ctx, fmt.Sprintf("get namespace %d", id), "id = ?", id)
}

func (st *namespaceStore) GetByFullPath(ctx context.Context, fullPath string) (*domain.Namespace, error) {
	return st.getWhere(ctx, fmt.Sprintf("get namespace %q", fullPath), "lower(full_path) = lower(?)", fullPath)
}

func (st *namespaceStore) ForUser(ctx context.Context, userID int64) (*domain.Namespace, error) {
	return st.getWhere(ctx, fmt.Sprintf("get namespace of user %d", userID), "owner_id = ?", userID)
}

func (st *namespaceStore) getWhere(ctx context.Context, op, where string, arg any) (*domain.Namespace, error) {
	if key, ok := arg.(string); ok && unstorable(key) {
		return nil, fmt.Errorf("bunstore: %s: %w", op, core.NotFound(namespaceTable.what))
	}
	n, err := namespaceTable.get(ctx, st.s.Conn(ctx).NewSelect().Where(where, arg).Limit(1))
	if err != nil {
		return nil, fmt.Errorf("bunstore: %s: %w", op, err)
	}
	return n, nil
}

func (st *namespaceStore) GetMany(ctx context.Context, ids []int64) ([]domain.Namespace, error) {
	out, err := namespaceTable.byIDs(ctx, st.s.Conn(ctx), "id", ids)
	if err != nil {
		return nil, fmt.Errorf("bunstore: get %d namespaces: %w", len(ids), err)
	}
	return out, nil
}

// Update locks the row, applies fn and saves it. A new Path or ParentID
// recomputes FullPath and rewrites the FullPath of every descendant in the
// same transaction; fn's FullPath is ignored. Moving a namespace under
// itself or one of its descendants, or under a personal namespace, is
// core.ErrInvalid.
func (st *namespaceStore) Update(ctx context.Context, id int64, fn func(n *domain.Namespace) error) (*domain.Namespace, error) {
	return modify(ctx, st.s, namespaceTable.locked(st.s, "id = ?", id), fn, st.save, func(err error) error {
		if deadlock(err) {
			// Two moves that would make a cycle together (a under b, b under
			// a) lock each other's rows: Postgres aborts one of them.
			err = &core.Error{Kind: core.ErrConflict, Msg: "The group was changed at the same time; try again", Err: err}
		}
		return fmt.Errorf("bunstore: update namespace %d: %w", id, err)
	})
}

// save writes n, edited from old, back; a new path or parent recomputes
// its full path and rewrites those of its whole subtree.
func (st *namespaceStore) save(ctx context.Context, db bun.IDB, old, n *domain.Namespace) (*domain.Namespace, error) {
	n.ID = old.ID
	n.UpdatedAt = edited(n.UpdatedAt, old.UpdatedAt)
	row := newNamespaceRow(n)
	row.FullPath = old.FullPath
	moved := !sameID(n.ParentID, old.ParentID)
	if moved || n.Path != old.Path {
		if moved && n.ParentID != nil {
			if err := st.checkMove(ctx, db, n.ID, *n.ParentID); err != nil {
				return nil, err
			}
		}
		full, err := st.fullPath(ctx, db, row.ParentID, row.Path)
		if err != nil {
			return nil, err
		}
		row.FullPath = full
		if err := st.lockSubtree(ctx, db, n.ID); err != nil {
			return nil, err
		}
	}
	out, err := namespaceTable.save(ctx, db, row, parentErr("User"))
	if err == nil && row.FullPath != old.FullPath {
		err = rewriteFullPaths(ctx, db, n.ID, row.FullPath)
	}
	return out, err
}

func sameID(a, b *int64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// checkMove refuses to put id under itself or one of its descendants. On
// Postgres, moves take a transaction-scoped advisory lock first: two
// concurrent moves could each pass the check and together make a cycle.
func (st *namespaceStore) checkMove(ctx context.Context, db bun.IDB, id, parentID int64) error {
	if st.s.rowLocks {
		if _, err := db.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext('hearth.namespaces.move'))"); err != nil {
			return fmt.Errorf("lock namespace moves: %w", err)
		}
	}
	if parentID == id {
		return core.BadRequest("A group cannot be its own parent")
	}
	var ids []int64
	if err := db.NewRaw(sqlAncestors+" SELECT id FROM up WHERE id = ?", bun.List([]int64{parentID}), id).Scan(ctx, &ids); err != nil {
		return fmt.Errorf("ancestors of %d: %w", parentID, err)
	}
	if len(ids) > 0 {
		return core.BadRequest("A group cannot be moved under one of its subgroups")
	}
	return nil
}

// lockSubtree locks every descendant of id on Postgres before their full
// paths are rewritten, so a concurrent Create under one of them (which holds
// a share lock on its parent) either commits first, and is then rewritten
// too by the later UPDATE statement, or waits and reads the new path.
func (st *namespaceStore) lockSubtree(ctx context.Context, db bun.IDB, id int64) error {
	if !st.s.rowLocks {
		return nil
	}
	var ids []int64
	err := db.NewRaw(sqlDescendants+" SELECT id FROM namespaces WHERE id IN (SELECT id FROM tree) FOR NO KEY UPDATE OF namespaces",
		bun.List([]int64{id})).Scan(ctx, &ids)
	if err != nil {
		return fmt.Errorf("lock descendants of %d: %w", id, err)
	}
	return nil
}

// rewriteFullPaths recomputes the full path of every descendant of id from
// id's new full path, in one statement.
func rewriteFullPaths(ctx context.Context, db bun.IDB, id int64, full string) error {
	_, err := db.NewRaw(`WITH RECURSIVE t(id, fp) AS (
	SELECT c.id, ? || '/' || c.path FROM namespaces c WHERE c.parent_id = ?
	UNION ALL
	SELECT c.id, t.fp || '/' || c.path FROM namespaces c JOIN t ON c.parent_id = t.id
)
UPDATE namespaces SET full_path = t.fp FROM t WHERE namespaces.id = t.id`, full, id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("rewrite full paths below %d: %w", id, writeErr(err, "Namespace"))
	}
	return nil
}

// Delete removes the namespace and its descendants; their projects (and the
// projects' shares and stars) go by ON DELETE CASCADE. Memberships have no
// foreign key to their polymorphic source, so they are deleted explicitly in
// the same transaction.
func (st *namespaceStore) Delete(ctx context.Context, id int64) error {
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		if err := namespaceTable.mustExist(ctx, db, id); err != nil {
			return err
		}
		return deleteNamespaceTree(ctx, db, id)
	})
	if err != nil {
		return fmt.Errorf("bunstore: delete namespace %d: %w", id, err)
	}
	return nil
}

// deleteNamespaceTree deletes id, every namespace below it, every project in
// them and every membership of those groups and projects. db must be a
// transaction.
func deleteNamespaceTree(ctx context.Context, db bun.IDB, id int64) error {
	var ids []int64
	if err := db.NewRaw(sqlDescendants+" SELECT id FROM tree", bun.List([]int64{id})).Scan(ctx, &ids); err != nil {
		return fmt.Errorf("descendants: %w", err)
	}
	ids = append(ids, id)
	if _, err := db.NewDelete().Model((*memberRow)(nil)).
		Where("source = ? AND source_id IN (?)", string(domain.MemberOfGroup), bun.List(ids)).Exec(ctx); err != nil {
		return fmt.Errorf("delete group memberships: %w", err)
	}
	projects := db.NewSelect().Model((*projectRow)(nil)).Column("id").Where("namespace_id IN (?)", bun.List(ids))
	if _, err := db.NewDelete().Model((*memberRow)(nil)).
		Where("source = ? AND source_id IN (?)", string(domain.MemberOfProject), projects).Exec(ctx); err != nil {
		return fmt.Errorf("delete project memberships: %w", err)
	}
	if _, err := db.NewDelete().Model((*namespaceRow)(nil)).Where("id IN (?)", bun.List(ids)).Exec(ctx); err != nil {
		return fmt.Errorf("delete namespaces: %w", err)
	}
	return nil
}

// Ancestors walks up from id in one recursive query; an unknown id has no
// ancestors.
func (st *namespaceStore) Ancestors(ctx context.Context, id int64) ([]domain.Namespace, error) {
	var rows []namespaceRow
	err := st.s.Conn(ctx).NewRaw(`WITH RECURSIVE up(id, depth) AS (
	SELECT parent_id, 1 FROM namespaces WHERE id = ? AND parent_id IS NOT NULL
	UNION ALL
	SELECT n.parent_id, up.depth + 1 FROM namespaces n JOIN up ON n.id = up.id WHERE n.parent_id IS NOT NULL AND up.depth < 1000
)
SELECT n.* FROM namespaces n JOIN up ON up.id = n.id ORDER BY up.depth DESC`, id).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("bunstore: ancestors of namespace %d: %w", id, err)
	}
	return namespaceTable.all(rows), nil
}

func (st *namespaceStore) Descendants(ctx context.Context, ids []int64) ([]int64, error) {
	return st.walk(ctx, "descendants", sqlDescendants+" SELECT id FROM tree WHERE id NOT IN (?) ORDER BY id", ids)
}

func (st *namespaceStore) AncestorIDs(ctx context.Context, ids []int64) ([]int64, error) {
	return st.walk(ctx, "ancestors", sqlAncestors+" SELECT id FROM up WHERE id NOT IN (?) ORDER BY id", ids)
}

func (st *namespaceStore) WithAncestors(ctx context.Context, ids []int64) ([]domain.Namespace, error) {
	if len(ids) == 0 {
		return []domain.Namespace{}, nil
	}
	var rows []namespaceRow
	// UNION (not ALL) visits each namespace once, so even a cycle ends.
	err := st.s.Conn(ctx).NewRaw(`WITH RECURSIVE up(id) AS (
	SELECT id FROM namespaces WHERE id IN (?)
	UNION
	SELECT n.parent_id FROM namespaces n JOIN up ON n.id = up.id WHERE n.parent_id IS NOT NULL
)
SELECT n.* FROM namespaces n JOIN up ON up.id = n.id`, bun.List(dedupeIDs(ids))).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("bunstore: %d namespaces with ancestors: %w", len(ids), err)
	}
	return namespaceTable.all(rows), nil
}

// walk runs one recursive query from ids, leaving ids themselves out.
func (st *namespaceStore) walk(ctx context.Context, what, query string, ids []int64) ([]int64, error) {
	out := []int64{}
	if len(ids) == 0 {
		return out, nil
	}
	list := bun.List(dedupeIDs(ids))
	if err := st.s.Conn(ctx).NewRaw(query, list, list).Scan(ctx, &out); err != nil {
		return nil, fmt.Errorf("bunstore: %s of %d namespaces: %w", what, len(ids), err)
	}
	return out, nil
}

func (st *namespaceStore) OfProjects(ctx context.Context, projectIDs []int64) ([]int64, error) {
	out := []int64{}
	if len(projectIDs) == 0 {
		return out, nil
	}
	err := st.s.Conn(ctx).NewSelect().Model((*namespaceRow)(nil)).ColumnExpr("DISTINCT n.id").
		Join("JOIN projects AS p ON p.namespace_id = n.id").
		Where("p.id IN (?)", bun.List(dedupeIDs(projectIDs))).
		Where("n.kind = ?", string(domain.NamespaceGroup)).
		OrderExpr("n.id").Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("bunstore: namespaces of %d projects: %w", len(projectIDs), err)
	}
	return out, nil
}

// ListGroups orders by name (default) or path, then ID, in the direction
// f.Ascending gives; an unknown OrderBy is core.ErrInvalid.
func (st *namespaceStore) ListGroups(ctx context.Context, f domain.GroupFilter) ([]domain.Namespace, int, error) {
	if f.OnlyIDsSet && len(f.OnlyIDs) == 0 {
		return []domain.Namespace{}, 0, nil
	}
	var col string
	switch f.OrderBy {
	case "", "name":
		col = "n.name"
	case "path":
		col = "n.path"
	default:
		return nil, 0, fmt.Errorf("bunstore: list groups: %w", core.InvalidParam("order_by"))
	}
	q := st.s.Conn(ctx).NewSelect().Where("n.kind = ?", string(domain.NamespaceGroup))
	if !f.All {
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			q = q.WhereOr("n.visibility = ?", string(domain.Public))
			if f.Internal {
				q = q.WhereOr("n.visibility = ?", string(domain.Internal))
			}
			if len(f.GroupIDs) > 0 {
				q = q.WhereOr("n.id IN (?)", bun.List(dedupeIDs(f.GroupIDs)))
			}
			return q
		})
	}
	if len(f.OnlyIDs) > 0 {
		q = q.Where("n.id IN (?)", bun.List(dedupeIDs(f.OnlyIDs)))
	}
	if len(f.SkipIDs) > 0 {
		q = q.Where("n.id NOT IN (?)", bun.List(dedupeIDs(f.SkipIDs)))
	}
	if f.ParentID != nil {
		q = q.Where("n.parent_id = ?", *f.ParentID)
	}
	if f.TopLevel {
		q = q.Where("n.parent_id IS NULL")
	}
	q = whereContains(q, f.Search, "n.name", "n.path")
	q = q.OrderExpr(orderBy(f.Ascending, col, "n.id"))
	out, n, err := namespaceTable.page(ctx, q, f.Page)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list groups: %w", err)
	}
	return out, n, nil
}

// Search orders by ID.
func (st *namespaceStore) Search(ctx context.Context, search string, ids []int64, idsSet bool, p domain.Page) ([]domain.Namespace, int, error) {
	if idsSet && len(ids) == 0 {
		return []domain.Namespace{}, 0, nil
	}
	q := st.s.Conn(ctx).NewSelect().Order("n.id")
	if len(ids) > 0 {
		q = q.Where("n.id IN (?)", bun.List(dedupeIDs(ids)))
	}
	q = whereContains(q, search, "n.name", "n.path")
	out, n, err := namespaceTable.page(ctx, q, p)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: search namespaces: %w", err)
	}
	return out, n, nil
}

// orderBy is "a DESC, b DESC" or "a ASC, b ASC".
func orderBy(asc bool, cols ...string) string {
	dir := " DESC"
	if asc {
		dir = " ASC"
	}
	out := ""
	for i, c := range cols {
		if i > 0 {
			out += ", "
		}
		out += c + dir
	}
	return out
}

var _ ports.NamespaceStore = (*namespaceStore)(nil)
