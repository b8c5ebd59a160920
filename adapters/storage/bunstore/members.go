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

// memberRow is a row of members, keyed by (source, source_id, user_id).
// source_id points at projects or namespaces, so it has no foreign key: the
// project and namespace stores delete memberships with their source.
// expires_at is a date (UTC midnight): the membership ends on it.
type memberRow struct {
	bun.BaseModel `bun:"table:members,alias:m"`

	Source      string     `bun:"source,pk"`
	SourceID    int64      `bun:"source_id,pk"`
	UserID      int64      `bun:"user_id,pk"`
	AccessLevel int        `bun:"access_level"`
	ExpiresAt   *time.Time `bun:"expires_at"`
	CreatedAt   time.Time  `bun:"created_at"`
	CreatedBy   int64      `bun:"created_by"`
}

func newMemberRow(m *domain.Member) *memberRow {
	return &memberRow{
		Source:      string(m.Source),
		SourceID:    m.SourceID,
		UserID:      m.UserID,
		AccessLevel: int(m.AccessLevel),
		ExpiresAt:   datePtr(m.ExpiresAt),
		CreatedAt:   ts(m.CreatedAt),
		CreatedBy:   m.CreatedBy,
	}
}

func (r *memberRow) domain() domain.Member {
	return domain.Member{
		Source:      domain.MemberSource(r.Source),
		SourceID:    r.SourceID,
		UserID:      r.UserID,
		AccessLevel: domain.AccessLevel(r.AccessLevel),
		ExpiresAt:   utcPtr(r.ExpiresAt),
		CreatedAt:   r.CreatedAt.UTC(),
		CreatedBy:   r.CreatedBy,
	}
}

var memberTable = tableOf("Member", (*memberRow).domain)

// shareRow is a row of project_shares, keyed by (project_id, group_id).
// expires_at is a date, as for memberships.
type shareRow struct {
	bun.BaseModel `bun:"table:project_shares,alias:s"`

	ProjectID   int64      `bun:"project_id,pk"`
	GroupID     int64      `bun:"group_id,pk"`
	GroupAccess int        `bun:"group_access"`
	ExpiresAt   *time.Time `bun:"expires_at"`
	CreatedAt   time.Time  `bun:"created_at"`
}

func (r *shareRow) domain() domain.ProjectShare {
	return domain.ProjectShare{
		ProjectID:   r.ProjectID,
		GroupID:     r.GroupID,
		GroupAccess: domain.AccessLevel(r.GroupAccess),
		ExpiresAt:   utcPtr(r.ExpiresAt),
		CreatedAt:   r.CreatedAt.UTC(),
	}
}

var shareTable = tableOf("Group Link", (*shareRow).domain)

type memberStore struct{ s *Store }

// errMemberExists and errShareExists are the conflicts GitLab reports.
func errMemberExists() error {
	return &core.Error{Kind: core.ErrConflict, Msg: "Member already exists"}
}

func errShareExists() error {
	return &core.Error{Kind: core.ErrConflict, Msg: "Project already shared with this group"}
}

// Add stores m; ExpiresAt is kept as a date and a zero CreatedAt means now.
// An unknown user is core.ErrNotFound.
func (st *memberStore) Add(ctx context.Context, m *domain.Member) error {
	m.CreatedAt = orNow(m.CreatedAt)
	row := newMemberRow(m)
	if err := st.s.insert(ctx, row, takenErr("", errMemberExists, "User")); err != nil {
		return fmt.Errorf("bunstore: add member %d to %s %d: %w", m.UserID, m.Source, m.SourceID, err)
	}
	*m = row.domain()
	return nil
}

func memberKey(src domain.MemberSource, sourceID, userID int64) (string, []any) {
	return "m.source = ? AND m.source_id = ? AND m.user_id = ?", []any{string(src), sourceID, userID}
}

func (st *memberStore) Get(ctx context.Context, src domain.MemberSource, sourceID, userID int64) (*domain.Member, error) {
	where, args := memberKey(src, sourceID, userID)
	m, err := memberTable.get(ctx, st.s.Conn(ctx).NewSelect().Where(where, args...))
	if err != nil {
		return nil, fmt.Errorf("bunstore: get member %d of %s %d: %w", userID, src, sourceID, err)
	}
	return m, nil
}

// Update locks the membership, applies fn and saves AccessLevel, ExpiresAt
// (as a date) and CreatedBy; the key fields are kept whatever fn does.
func (st *memberStore) Update(ctx context.Context, src domain.MemberSource, sourceID, userID int64, fn func(m *domain.Member) error) (*domain.Member, error) {
	where, args := memberKey(src, sourceID, userID)
	save := func(ctx context.Context, db bun.IDB, _, m *domain.Member) (*domain.Member, error) {
		m.Source, m.SourceID, m.UserID = src, sourceID, userID
		return memberTable.save(ctx, db, newMemberRow(m), nil)
	}
	return modify(ctx, st.s, memberTable.locked(st.s, where, args...), fn, save, func(err error) error {
		return fmt.Errorf("bunstore: update member %d of %s %d: %w", userID, src, sourceID, err)
	})
}

func (st *memberStore) Remove(ctx context.Context, src domain.MemberSource, sourceID, userID int64) error {
	err := memberTable.deleteOne(ctx, st.s.Conn(ctx), "source = ? AND source_id = ? AND user_id = ?", string(src), sourceID, userID)
	if err != nil {
		return fmt.Errorf("bunstore: remove member %d of %s %d: %w", userID, src, sourceID, err)
	}
	return nil
}

// List orders by user ID; search matches username or name, case-insensitively.
func (st *memberStore) List(ctx context.Context, src domain.MemberSource, sourceID int64, search string, p domain.Page) ([]domain.Member, int, error) {
	q := st.s.Conn(ctx).NewSelect().
		Where("m.source = ? AND m.source_id = ?", string(src), sourceID).
		Order("m.user_id")
	if search != "" {
		q = whereContains(q.Join("JOIN users AS u ON u.id = m.user_id"), search, "u.username", "u.name")
	}
	out, n, err := memberTable.page(ctx, q, p)
	if err != nil {
		return nil, 0, fmt.Errorf("bunstore: list members of %s %d: %w", src, sourceID, err)
	}
	return out, n, nil
}

// OfUser orders by source, then source ID.
func (st *memberStore) OfUser(ctx context.Context, userID int64) ([]domain.Member, error) {
	out, err := memberTable.list(ctx, st.s.Conn(ctx).NewSelect().Where("m.user_id = ?", userID).Order("m.source", "m.source_id"))
	if err != nil {
		return nil, fmt.Errorf("bunstore: memberships of user %d: %w", userID, err)
	}
	return out, nil
}

// InSources orders by source ID.
func (st *memberStore) InSources(ctx context.Context, userID int64, src domain.MemberSource, sourceIDs []int64) ([]domain.Member, error) {
	if len(sourceIDs) == 0 {
		return []domain.Member{}, nil
	}
	out, err := memberTable.list(ctx, st.s.Conn(ctx).NewSelect().
		Where("m.user_id = ? AND m.source = ? AND m.source_id IN (?)", userID, string(src), bun.List(dedupeIDs(sourceIDs))).
		Order("m.source_id"))
	if err != nil {
		return nil, fmt.Errorf("bunstore: memberships of user %d in %d %ss: %w", userID, len(sourceIDs), src, err)
	}
	return out, nil
}

// CountOwners counts direct Owner memberships of the group that have not
// expired at the current time.
func (st *memberStore) CountOwners(ctx context.Context, groupID int64) (int, error) {
	n, err := st.s.Conn(ctx).NewSelect().Model((*memberRow)(nil)).
		Where("m.source = ? AND m.source_id = ? AND m.access_level = ?", string(domain.MemberOfGroup), groupID, int(domain.Owner)).
		Where("(m.expires_at IS NULL OR m.expires_at > ?)", now()).
		Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("bunstore: count owners of group %d: %w", groupID, err)
	}
	return int(n), nil
}

// Share stores s; ExpiresAt is kept as a date and a zero CreatedAt means
// now. An unknown project or group is core.ErrNotFound.
func (st *memberStore) Share(ctx context.Context, s *domain.ProjectShare) error {
	row := &shareRow{
		ProjectID:   s.ProjectID,
		GroupID:     s.GroupID,
		GroupAccess: int(s.GroupAccess),
		ExpiresAt:   datePtr(s.ExpiresAt),
		CreatedAt:   orNow(s.CreatedAt),
	}
	// Which parent a foreign-key violation is about is read once the
	// failed statement is rolled back, so that error stays as it is here.
	err := st.s.insert(ctx, row, func(err error) error {
		if _, ok := uniqueViolation(err); ok {
			return errShareExists()
		}
		return err
	})
	if foreignKeyViolation(err) {
		err = st.missingShareParent(ctx, s.ProjectID, s.GroupID)
	}
	if err != nil {
		return fmt.Errorf("bunstore: share project %d with group %d: %w", s.ProjectID, s.GroupID, err)
	}
	*s = row.domain()
	return nil
}

// missingShareParent names what a share's foreign-key violation was about.
func (st *memberStore) missingShareParent(ctx context.Context, projectID, groupID int64) error {
	if err := projectTable.mustExist(ctx, st.s.Conn(ctx), projectID); err != nil {
		return err
	}
	return core.NotFound("Group")
}

func (st *memberStore) Unshare(ctx context.Context, projectID, groupID int64) error {
	if err := shareTable.deleteOne(ctx, st.s.Conn(ctx), "project_id = ? AND group_id = ?", projectID, groupID); err != nil {
		return fmt.Errorf("bunstore: unshare project %d with group %d: %w", projectID, groupID, err)
	}
	return nil
}

// SharesOfProject orders by group ID.
func (st *memberStore) SharesOfProject(ctx context.Context, projectID int64) ([]domain.ProjectShare, error) {
	return st.shares(ctx, "s.project_id = ?", projectID)
}

// SharesWithGroups orders by project ID, then group ID.
func (st *memberStore) SharesWithGroups(ctx context.Context, groupIDs []int64) ([]domain.ProjectShare, error) {
	if len(groupIDs) == 0 {
		return []domain.ProjectShare{}, nil
	}
	return st.shares(ctx, "s.group_id IN (?)", bun.List(dedupeIDs(groupIDs)))
}

// SharesOfProjects orders by project ID, then group ID.
func (st *memberStore) SharesOfProjects(ctx context.Context, projectIDs []int64) ([]domain.ProjectShare, error) {
	if len(projectIDs) == 0 {
		return []domain.ProjectShare{}, nil
	}
	return st.shares(ctx, "s.project_id IN (?)", bun.List(dedupeIDs(projectIDs)))
}

func (st *memberStore) shares(ctx context.Context, where string, arg any) ([]domain.ProjectShare, error) {
	out, err := shareTable.list(ctx, st.s.Conn(ctx).NewSelect().Where(where, arg).Order("s.project_id", "s.group_id"))
	if err != nil {
		return nil, fmt.Errorf("bunstore: list project shares: %w", err)
	}
	return out, nil
}

var _ ports.MemberStore = (*memberStore)(nil)
