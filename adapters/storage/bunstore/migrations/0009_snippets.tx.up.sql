-- Project snippets. author_id carries no foreign key, like the authors of
-- notes: snippets are history and outlive the account. Their notes and
-- awards point at them by type and ID, without a foreign key, so
-- SnippetStore.Delete removes them in its transaction.
CREATE TABLE IF NOT EXISTS snippets (
    id {{.ID}},
    project_id BIGINT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    author_id BIGINT NOT NULL,
    title TEXT NOT NULL,
    file_name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    content TEXT NOT NULL DEFAULT '',
    visibility TEXT NOT NULL,
    expires_at {{.Time}},
    -- Recorded at creation for spam checks (user_agent_detail).
    user_agent TEXT NOT NULL DEFAULT '',
    ip_address TEXT NOT NULL DEFAULT '',
    akismet_submitted BOOLEAN NOT NULL DEFAULT FALSE,
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL
);
--bun:split
-- A project's snippets are listed newest first.
CREATE INDEX IF NOT EXISTS snippets_project_created_idx ON snippets (project_id, created_at, id);
