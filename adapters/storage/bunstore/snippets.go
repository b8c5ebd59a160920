package bunstore

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// snippetRow is a row of snippets.
type snippetRow struct {
	bun.BaseModel `bun:"table:snippets,alias:sn"`

	ID               int64      `bun:"id,pk,autoincrement"`
	ProjectID        int64      `bun:"project_id,nullzero"` // NULL: a personal snippet
	AuthorID         int64      `bun:"author_id"`
	Title            string     `bun:"title"`
	FileName         string     `bun:"file_name"`
	Description      string     `bun:"description"`
	Content          string     `bun:"content"`
	Visibility       string     `bun:"visibility"`
	ExpiresAt        *time.Time `bun:"expires_at"`
	UserAgent        string     `bun:"user_agent"`
	IPAddress        string     `bun:"ip_address"`
	AkismetSubmitted bool       `bun:"akismet_submitted"`
	CreatedAt        time.Time  `bun:"created_at"`
	UpdatedAt        time.Time  `bun:"updated_at"`
}

func newSnippetRow(s *domain.Snippet) *snippetRow {
	return &snippetRow{
		ID:               s.ID,
		ProjectID:        s.ProjectID,
		AuthorID:         s.AuthorID,
		Title:            s.Title,
		FileName:         s.FileName,
		Description:      s.Description,
		Content:          s.Content,
		Visibility:       string(s.Visibility),
		ExpiresAt:        tsPtr(s.ExpiresAt),
		UserAgent:        s.UserAgent,
		IPAddress:        s.IPAddress,
		AkismetSubmitted: s.AkismetSubmitted,
		CreatedAt:        ts(s.CreatedAt),
		UpdatedAt:        ts(s.UpdatedAt),
	}
}

func (r *snippetRow) domain() domain.Snippet {
	return domain.Snippet{
		ID:               r.ID,
		ProjectID:        r.ProjectID,
		AuthorID:         r.AuthorID,
		Title:            r.Title,
		FileName:         r.FileName,
		Description:      r.Description,
		Content:          r.Content,
		Visibility:       domain.Visibility(r.Visibility),
		ExpiresAt:        utcPtr(r.ExpiresAt),
		UserAgent:        r.UserAgent,
		IPAddress:        r.IPAddress,
		AkismetSubmitted: r.AkismetSubmitted,
		CreatedAt:        r.CreatedAt.UTC(),
		UpdatedAt:        r.UpdatedAt.UTC(),
	}
}

var snippetTable = tableOf("Snippet", (*snippetRow).domain)

type snippetStore struct{ s *Store }

// Create inserts s. Zero times mean now (UpdatedAt: CreatedAt); an empty
// visibility is private, the one that reveals nothing. An unknown project
// is core.ErrNotFound; ProjectID 0 makes a personal snippet.
func (st *snippetStore) Create(ctx context.Context, s *domain.Snippet) error {
	if s.Visibility == "" {
		s.Visibility = domain.Private
	}
	s.CreatedAt, s.UpdatedAt = created(s.CreatedAt, s.UpdatedAt)
	row := newSnippetRow(s)
	row.ID = 0
	if err := st.s.insert(ctx, row, parentErr("Project"), "id"); err != nil {
		return fmt.Errorf("bunstore: create snippet in project %d: %w", s.ProjectID, err)
	}
	*s = row.domain()
	return nil
}

func (st *snippetStore) Get(ctx context.Context, projectID, id int64) (*domain.Snippet, error) {
	s, err := st.one(ctx, st.s.Conn(ctx), false, projectID, id)
	if err != nil {
		return nil, fmt.Errorf("bunstore: get snippet %d of project %d: %w", id, projectID, err)
	}
	return s, nil
}

// one reads a project's snippet; lock takes the row lock when the store
// uses them.
func (st *snippetStore) one(ctx context.Context, db bun.IDB, lock bool, projectID, id int64) (*domain.Snippet, error) {
	q := ofProject(db.NewSelect(), "sn.", projectID).Where("sn.id = ?", id)
	if lock {
		q = st.s.forUpdate(q, "sn")
	}
	return snippetTable.get(ctx, q)
}

// Update locks the row, applies fn and saves every column but ID,
// ProjectID and CreatedAt. UpdatedAt = now unless fn changed it.
// core.ErrNotFound when absent; fn's error is returned as is.
func (st *snippetStore) Update(ctx context.Context, projectID, id int64, fn func(s *domain.Snippet) error) (*domain.Snippet, error) {
	load := func(ctx context.Context, db bun.IDB) (*domain.Snippet, error) {
		return st.one(ctx, db, true, projectID, id)
	}
	save := func(ctx context.Context, db bun.IDB, old, s *domain.Snippet) (*domain.Snippet, error) {
		s.ID, s.ProjectID, s.CreatedAt = old.ID, old.ProjectID, old.CreatedAt
		s.UpdatedAt = edited(s.UpdatedAt, old.UpdatedAt)
		return snippetTable.save(ctx, db, newSnippetRow(s), nil)
	}
	return modify(ctx, st.s, load, fn, save, func(err error) error {
		return fmt.Errorf("bunstore: update snippet %d of project %d: %w", id, projectID, err)
	})
}

// Delete removes the snippet with its notes, the awards on it and on its
// notes (none of which has a foreign key to it), in one transaction. A
// snippet that is missing, or belongs to another project, is left alone
// and is no error.
func (st *snippetStore) Delete(ctx context.Context, projectID, id int64) error {
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		res, err := ofProject(db.NewDelete().Model((*snippetRow)(nil)), "", projectID).Where("id = ?", id).Exec(ctx)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		notes := db.NewSelect().Model((*noteRow)(nil)).Column("n.id").
			Where("n.noteable_type = ? AND n.noteable_id = ?", domain.TargetSnippet, id)
		if _, err := db.NewDelete().TableExpr("award_emoji").
			Where("(awardable_type = ? AND awardable_id = ?) OR (awardable_type = ? AND awardable_id IN (?))",
				domain.TargetSnippet, id, domain.TargetNote, notes).Exec(ctx); err != nil {
			return fmt.Errorf("awards: %w", err)
		}
		if _, err := db.NewDelete().Model((*noteRow)(nil)).
			Where("noteable_type = ? AND noteable_id = ?", domain.TargetSnippet, id).Exec(ctx); err != nil {
			return fmt.Errorf("notes: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("bunstore: delete snippet %d of project %d: %w", id, projectID, err)
	}
	return nil
}

// List selects the snippets of f.ProjectID (0: the personal ones) whose visibility is one of
// f.Visibilities or whose author is f.AuthorID (when not 0); with
// neither, nothing. Newest first (created_at, then ID), two queries.
func (st *snippetStore) List(ctx context.Context, f domain.SnippetFilter) ([]domain.Snippet, int, error) {
	q := ofProject(st.s.Conn(ctx).NewSelect(), "sn.", f.ProjectID)
	vis := make([]string, 0, len(f.Visibilities))
	for _, v := range f.Visibilities {
		vis = append(vis, string(v))
	}
	switch {
	case len(vis) > 0 && f.AuthorID != 0:
		q = q.Where("(sn.visibility IN (?) OR sn.author_id = ?)", bun.List(dedupeStrings(vis)), f.AuthorID)
	case len(vis) > 0:
		q = q.Where("sn.visibility IN (?)", bun.List(dedupeStrings(vis)))
	case f.AuthorID != 0:
		q = q.Where("sn.author_id = ?", f.AuthorID)
	default:
		return []domain.Snippet{}, 0, nil
	}
	q = q.OrderExpr(orderBy(false, "sn.created_at", "sn.id"))
	out, n, err := snippetTable.page(ctx, q, f.Page)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list snippets of project %d: %w", f.ProjectID, err)
	}
	return out, n, nil
}

// ofProject restricts q to the snippets of project projectID, or to the
// personal snippets (project_id NULL) when it is 0; prefix is the
// table's alias with its dot, or empty.
func ofProject[Q interface {
	Where(string, ...any) Q
}](q Q, prefix string, projectID int64) Q {
	if projectID == 0 {
		return q.Where(prefix + "project_id IS NULL")
	}
	return q.Where(prefix+"project_id = ?", projectID)
}

var _ ports.SnippetStore = (*snippetStore)(nil)
