package bunstore

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// artifactRow is a row of ci_artifacts, one per job and type.
type artifactRow struct {
	bun.BaseModel `bun:"table:ci_artifacts,alias:a"`

	ID        int64      `bun:"id,pk,autoincrement"`
	JobID     int64      `bun:"job_id"`
	ProjectID int64      `bun:"project_id"`
	Type      string     `bun:"artifact_type"`
	Format    string     `bun:"format"`
	Filename  string     `bun:"filename"`
	Size      int64      `bun:"size"`
	Key       string     `bun:"blob_key"`
	SHA256    string     `bun:"sha256"`
	ExpireAt  *time.Time `bun:"expire_at"`
	CreatedAt time.Time  `bun:"created_at"`
}

func newArtifactRow(a *domain.Artifact) *artifactRow {
	return &artifactRow{ID: a.ID, JobID: a.JobID, ProjectID: a.ProjectID, Type: a.Type, Format: a.Format,
		Filename: a.Filename, Size: a.Size, Key: a.Key, SHA256: a.SHA256, ExpireAt: tsPtr(a.ExpireAt), CreatedAt: ts(a.CreatedAt)}
}

func (r *artifactRow) domain() domain.Artifact {
	return domain.Artifact{ID: r.ID, JobID: r.JobID, ProjectID: r.ProjectID, Type: r.Type, Format: r.Format,
		Filename: r.Filename, Size: r.Size, Key: r.Key, SHA256: r.SHA256, ExpireAt: utcPtr(r.ExpireAt), CreatedAt: r.CreatedAt.UTC()}
}

var artifactTable = tableOf("Artifact", (*artifactRow).domain)

type artifactStore struct{ s *Store }

// Create locks the job row (so that two uploads of one job's artifact
// replace each other in turn), deletes the artifact of the same type and
// inserts a, in one transaction. ProjectID is the job's; an unknown job is
// core.ErrNotFound.
func (st *artifactStore) Create(ctx context.Context, a *domain.Artifact) (*domain.Artifact, error) {
	a.CreatedAt = orNow(a.CreatedAt)
	var old *domain.Artifact
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		job, err := jobTable.get(ctx, st.s.forUpdate(db.NewSelect().Where("j.id = ?", a.JobID)))
		if err != nil {
			return err
		}
		a.ProjectID = job.ProjectID
		prev, err := artifactTable.list(ctx, db.NewSelect().Where("a.job_id = ? AND a.artifact_type = ?", a.JobID, a.Type))
		if err != nil {
			return err
		}
		if len(prev) > 0 {
			old = &prev[0]
			if _, err := db.NewDelete().Model((*artifactRow)(nil)).Where("id = ?", old.ID).Exec(ctx); err != nil {
				return err
			}
		}
		row := newArtifactRow(a)
		row.ID = 0
		if _, err := db.NewInsert().Model(row).Returning("id").Exec(ctx); err != nil {
			return writeErr(err, "Job")
		}
		*a = row.domain()
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("bunstore: create %s artifact of job %d: %w", a.Type, a.JobID, err)
	}
	return old, nil
}

// OfJobs reads each job's artifacts by ID, in one query.
func (st *artifactStore) OfJobs(ctx context.Context, jobIDs []int64) (map[int64][]domain.Artifact, error) {
	out := map[int64][]domain.Artifact{}
	if len(jobIDs) == 0 {
		return out, nil
	}
	list, err := artifactTable.list(ctx, st.s.Conn(ctx).NewSelect().
		Where("a.job_id IN (?)", bun.List(dedupeIDs(jobIDs))).OrderExpr("a.job_id, a.id"))
	if err != nil {
		return nil, fmt.Errorf("bunstore: artifacts of %d jobs: %w", len(jobIDs), err)
	}
	for _, a := range list {
		out[a.JobID] = append(out[a.JobID], a)
	}
	return out, nil
}

// DeleteOfJob deletes and returns the job's artifacts (of types), in one
// transaction.
func (st *artifactStore) DeleteOfJob(ctx context.Context, jobID int64, types ...string) ([]domain.Artifact, error) {
	var out []domain.Artifact
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		sel := db.NewSelect().Where("a.job_id = ?", jobID)
		del := db.NewDelete().Model((*artifactRow)(nil)).Where("job_id = ?", jobID)
		if len(types) > 0 {
			sel = sel.Where("a.artifact_type IN (?)", bun.List(types))
			del = del.Where("artifact_type IN (?)", bun.List(types))
		}
		var err error
		if out, err = artifactTable.list(ctx, st.s.forUpdate(sel).OrderExpr("a.id")); err != nil {
			return err
		}
		_, err = del.Exec(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("bunstore: delete the artifacts of job %d: %w", jobID, err)
	}
	return out, nil
}

// Keep clears expire_at on the job's artifacts in one statement.
func (st *artifactStore) Keep(ctx context.Context, jobID int64) error {
	_, err := st.s.Conn(ctx).NewUpdate().Model((*artifactRow)(nil)).
		Set("expire_at = NULL").Where("job_id = ?", jobID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: keep the artifacts of job %d: %w", jobID, err)
	}
	return nil
}

// Expired reads ci_artifacts_expire_at_idx, soonest expired first.
func (st *artifactStore) Expired(ctx context.Context, before time.Time, limit int) ([]domain.Artifact, error) {
	if limit <= 0 {
		return []domain.Artifact{}, nil
	}
	out, err := artifactTable.list(ctx, st.s.Conn(ctx).NewSelect().
		Where("a.expire_at IS NOT NULL AND a.expire_at < ?", ts(before)).OrderExpr("a.expire_at, a.id").Limit(int64(limit)))
	if err != nil {
		return nil, fmt.Errorf("bunstore: expired artifacts: %w", err)
	}
	return out, nil
}

func (st *artifactStore) Delete(ctx context.Context, id int64) error {
	if err := artifactTable.deleteOne(ctx, st.s.Conn(ctx), "id = ?", id); err != nil {
		return fmt.Errorf("bunstore: delete artifact %d: %w", id, err)
	}
	return nil
}

var _ ports.ArtifactStore = (*artifactStore)(nil)
