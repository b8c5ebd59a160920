-- Broadcast messages (GitLab's broadcast_messages): banners administrators
-- show every user between two times. What shows now is read by ends_at
-- (messages that have not ended yet are few, those ended many), then
-- starts_at.
CREATE TABLE IF NOT EXISTS broadcast_messages (
    id {{.ID}},
    message TEXT NOT NULL,
    starts_at {{.Time}} NOT NULL,
    ends_at {{.Time}} NOT NULL,
    color TEXT NOT NULL DEFAULT '',
    font TEXT NOT NULL DEFAULT '',
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS broadcast_messages_ends_at_idx ON broadcast_messages (ends_at, starts_at);
