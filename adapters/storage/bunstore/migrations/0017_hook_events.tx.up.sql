-- Changes that hooks may want, written in the change's transaction as one
-- small row (the domain event as JSON) and fanned out afterwards by the
-- delivery nodes: payload built, one delivery per hook, the row deleted,
-- all in one transaction. A change thus pays one row whatever its hooks.
-- Nodes claim rows as they claim deliveries (claimed_by, claim_expires_at),
-- so a row whose node crashed is fanned out by another, and one fan-out
-- commits per row.
CREATE TABLE IF NOT EXISTS hook_events (
    id {{.ID}},
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    claimed_by TEXT NOT NULL DEFAULT '',
    claim_expires_at {{.Time}},
    created_at {{.Time}} NOT NULL
);
