package bunstore

import (
	"bytes"
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/hearth-forge/hearth/core"
)

// traceChunkRow is a row of ci_trace_chunks: the bytes one append added,
// from Offset on.
type traceChunkRow struct {
	bun.BaseModel `bun:"table:ci_trace_chunks,alias:tc"`

	JobID  int64  `bun:"job_id,pk"`
	Offset int64  `bun:"start_offset,pk"`
	Data   []byte `bun:"data"`
}

// AppendTrace moves the job's trace_size from offset to offset+len(data)
// in one compare-and-swap UPDATE (which also marks the job as updated: the
// runner is alive) and stores data as a chunk of its own, in one
// transaction: of two appends at the same offset exactly one moves the
// size, the other gets core.ErrStale.
func (st *jobStore) AppendTrace(ctx context.Context, jobID, offset int64, data []byte) (int64, error) {
	err := st.s.inTx(ctx, func(ctx context.Context, db bun.IDB) error {
		res, err := db.NewUpdate().Model((*jobRow)(nil)).
			Set("trace_size = trace_size + ?", int64(len(data))).
			Set("updated_at = ?", now()).
			Where("id = ? AND trace_size = ?", jobID, offset).
			Exec(ctx)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			if err := jobTable.mustExist(ctx, db, jobID); err != nil {
				return err
			}
			return &core.Error{Kind: core.ErrStale, Msg: fmt.Sprintf("trace offset %d is not the trace's size", offset)}
		}
		if len(data) == 0 {
			return nil
		}
		_, err = db.NewInsert().Model(&traceChunkRow{JobID: jobID, Offset: offset, Data: data}).Exec(ctx)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("bunstore: append to the trace of job %d: %w", jobID, err)
	}
	return offset + int64(len(data)), nil
}

// Trace concatenates the job's chunks in order; empty when there are none.
func (st *jobStore) Trace(ctx context.Context, jobID int64) ([]byte, error) {
	var chunks [][]byte
	err := st.s.Conn(ctx).NewSelect().Model((*traceChunkRow)(nil)).Column("tc.data").
		Where("tc.job_id = ?", jobID).OrderExpr("tc.start_offset").Scan(ctx, &chunks)
	if err != nil {
		return nil, fmt.Errorf("bunstore: trace of job %d: %w", jobID, err)
	}
	return bytes.Join(chunks, nil), nil
}

// DeleteTrace removes the job's chunks; its TraceSize stays, so a late
// append at the old end is still told where the trace ended.
func (st *jobStore) DeleteTrace(ctx context.Context, jobID int64) error {
	if _, err := st.s.Conn(ctx).NewDelete().Model((*traceChunkRow)(nil)).Where("job_id = ?", jobID).Exec(ctx); err != nil {
		return fmt.Errorf("bunstore: delete the trace of job %d: %w", jobID, err)
	}
	return nil
}
