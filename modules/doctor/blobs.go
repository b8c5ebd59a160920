package doctor

import (
	"context"
	"errors"
	"fmt"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// blobs checks that the files the database names are in the blob store:
// every artifact's, and every archived trace.
func (r *run) blobs(ctx context.Context) error {
	for after := int64(0); ; {
		list, err := r.s.p.BlobRefs.ArtifactsAfter(ctx, after, pageSize)
		if err != nil {
			return fmt.Errorf("list artifacts: %w", err)
		}
		for i := range list {
			a := list[i]
			after = a.ID
			r.rep.Artifacts++
			ok, err := r.blobExists(ctx, a.Key)
			if err != nil {
				return err
			}
			if ok {
				continue
			}
			r.problem(ctx, Error,
				fmt.Sprintf("%s: job %d: %s artifact %q: file %s is missing from the blob store", r.projectLabel(a.ProjectID), a.JobID, a.Type, a.Filename, a.Key),
				"restore the blob store from a backup; or `hearth doctor --repair` deletes the artifact's record so that the API stops offering the file",
				func(ctx context.Context) (string, error) {
					if err := r.s.p.Artifacts.Delete(ctx, a.ID); err != nil && !errors.Is(err, core.ErrNotFound) {
						return "", err
					}
					return "deleted the artifact's record: the job shows no such artifact", nil
				})
		}
		if len(list) < pageSize {
			break
		}
	}
	for after := int64(0); ; {
		list, err := r.s.p.BlobRefs.ArchivedTracesAfter(ctx, after, pageSize)
		if err != nil {
			return fmt.Errorf("list archived traces: %w", err)
		}
		for _, j := range list {
			after = j.ID
			r.rep.Traces++
			key := domain.TraceKey(j.ProjectID, j.ID)
			ok, err := r.blobExists(ctx, key)
			if err != nil {
				return err
			}
			if !ok {
				r.problem(ctx, Warning,
					fmt.Sprintf("%s: job %d: archived trace %s is missing from the blob store", r.projectLabel(j.ProjectID), j.ID, key),
					"restore the blob store from a backup; until then the job shows no trace", nil)
			}
		}
		if len(list) < pageSize {
			return nil
		}
	}
}

// blobExists opens the file and closes it at once.
func (r *run) blobExists(ctx context.Context, key string) (bool, error) {
	rc, _, err := r.s.p.Blobs.Open(ctx, key)
	if errors.Is(err, core.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("open blob %s: %w", key, err)
	}
	_ = rc.Close()
	return true, nil
}

func (r *run) projectLabel(id int64) string {
	if st := r.repo[id]; st != nil {
		return st.label
	}
	return fmt.Sprintf("project id %d", id)
}
