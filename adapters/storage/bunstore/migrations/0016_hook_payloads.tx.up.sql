-- One body per event, shared by its deliveries: an event for five hooks
-- writes its payload once inside the user's transaction instead of five
-- times. Deliveries queued by EnqueueFor point at their body (payload_id)
-- and keep payload empty; single deliveries (Enqueue, Record) and rows
-- from before this migration keep their own. Bodies no delivery refers to
-- are pruned with the deliveries.
CREATE TABLE IF NOT EXISTS hook_payloads (
    id {{.ID}},
    payload TEXT NOT NULL,
    created_at {{.Time}} NOT NULL
);
--bun:split
ALTER TABLE hook_deliveries ADD COLUMN payload_id BIGINT REFERENCES hook_payloads (id);
--bun:split
CREATE INDEX IF NOT EXISTS hook_deliveries_payload_id_idx ON hook_deliveries (payload_id);
