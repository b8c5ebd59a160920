-- The webhook outbox: one row per event to deliver to one hook, written in
-- the transaction of the change that caused it, so a crash loses none.
-- Workers claim rows (state running, claimed_by, claim_expires_at); a
-- running row whose claim expired belongs to a crashed node and is claimed
-- again. payload is the JSON body as TEXT; last_status is NULL until a
-- response came back. max_attempts is the configured limit when the row was
-- queued, so Finish decides retry or give-up in one statement.
CREATE TABLE IF NOT EXISTS hook_deliveries (
    id {{.ID}},
    hook_id BIGINT NOT NULL REFERENCES project_hooks (id) ON DELETE CASCADE,
    event TEXT NOT NULL,
    payload TEXT NOT NULL DEFAULT '{}',
    state TEXT NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL DEFAULT 1,
    next_attempt_at {{.Time}} NOT NULL,
    claimed_by TEXT NOT NULL DEFAULT '',
    claim_expires_at {{.Time}},
    last_status INTEGER,
    last_error TEXT NOT NULL DEFAULT '',
    last_duration_ms BIGINT NOT NULL DEFAULT 0,
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL,
    delivered_at {{.Time}}
);
--bun:split
-- Claim: the due pending rows (and running ones) in next_attempt_at order.
CREATE INDEX IF NOT EXISTS hook_deliveries_claim_idx ON hook_deliveries (state, next_attempt_at, id);
--bun:split
-- A hook's recent deliveries, newest first.
CREATE INDEX IF NOT EXISTS hook_deliveries_hook_idx ON hook_deliveries (hook_id, created_at);
