-- The instance's application settings (GitLab's application_settings): one
-- row, id 1, written with defaults by the first node that reads it. The
-- settings are a JSON document, so a setting added later needs no
-- migration: a document without it reads as the default.
CREATE TABLE IF NOT EXISTS application_settings (
    id BIGINT PRIMARY KEY,
    data TEXT NOT NULL,
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL
);
