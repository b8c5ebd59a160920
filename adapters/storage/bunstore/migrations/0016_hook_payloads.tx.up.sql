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
-- payload_id has neither an index nor a foreign key: only the hourly
-- prune looks bodies up by it (NOT IN, one pass over the deliveries),
-- every queued delivery would pay for an index inside the user's
-- transaction, and a foreign key would make deleting each body scan the
-- deliveries. Bodies are written with their deliveries in one
-- transaction and pruned only when unreferenced.
ALTER TABLE hook_deliveries ADD COLUMN payload_id BIGINT;
