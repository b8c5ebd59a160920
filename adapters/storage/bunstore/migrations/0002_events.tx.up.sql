-- The activity feed. No foreign keys: events are history and outlive their
-- authors and projects.
CREATE TABLE IF NOT EXISTS events (
    id {{.ID}},
    project_id BIGINT,
    author_id BIGINT NOT NULL,
    action TEXT NOT NULL,
    target_id BIGINT,
    target_type TEXT NOT NULL DEFAULT '',
    target_title TEXT NOT NULL DEFAULT '',
    title TEXT NOT NULL DEFAULT '',
    data TEXT,
    note_id BIGINT,
    created_at {{.Time}} NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS events_author_id_created_at_idx ON events (author_id, created_at);
--bun:split
CREATE INDEX IF NOT EXISTS events_project_id_created_at_idx ON events (project_id, created_at);
--bun:split
CREATE INDEX IF NOT EXISTS events_created_at_idx ON events (created_at);
