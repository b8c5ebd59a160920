-- Personal snippets belong to no project: snippets.project_id becomes
-- nullable (NULL for them). Postgres drops the constraint in place.
-- SQLite cannot alter a column, so it copies the table into a new one
-- with the same ids and carries the AUTOINCREMENT counter over, so that
-- the id of a snippet deleted before the migration is never handed out
-- again (notes and awards name snippets by id).
{{if .Postgres}}
ALTER TABLE snippets ALTER COLUMN project_id DROP NOT NULL;
{{else}}
CREATE TABLE snippets_personal (
    id {{.ID}},
    project_id BIGINT REFERENCES projects (id) ON DELETE CASCADE,
    author_id BIGINT NOT NULL,
    title TEXT NOT NULL,
    file_name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    content TEXT NOT NULL DEFAULT '',
    visibility TEXT NOT NULL,
    expires_at {{.Time}},
    user_agent TEXT NOT NULL DEFAULT '',
    ip_address TEXT NOT NULL DEFAULT '',
    akismet_submitted BOOLEAN NOT NULL DEFAULT FALSE,
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL
);
--bun:split
INSERT INTO snippets_personal (id, project_id, author_id, title, file_name, description, content, visibility,
    expires_at, user_agent, ip_address, akismet_submitted, created_at, updated_at)
SELECT id, project_id, author_id, title, file_name, description, content, visibility,
    expires_at, user_agent, ip_address, akismet_submitted, created_at, updated_at
FROM snippets;
--bun:split
DELETE FROM sqlite_sequence WHERE name = 'snippets_personal';
--bun:split
INSERT INTO sqlite_sequence (name, seq) SELECT 'snippets_personal', seq FROM sqlite_sequence WHERE name = 'snippets';
--bun:split
DROP TABLE snippets;
--bun:split
ALTER TABLE snippets_personal RENAME TO snippets;
--bun:split
CREATE INDEX IF NOT EXISTS snippets_project_created_idx ON snippets (project_id, created_at, id);
{{end}}
--bun:split
-- GET /snippets lists the caller's personal snippets, GET
-- /snippets/public the public ones, newest first.
CREATE INDEX IF NOT EXISTS snippets_personal_author_idx ON snippets (author_id, created_at, id) WHERE project_id IS NULL;
--bun:split
CREATE INDEX IF NOT EXISTS snippets_personal_visibility_idx ON snippets (visibility, created_at, id) WHERE project_id IS NULL;
