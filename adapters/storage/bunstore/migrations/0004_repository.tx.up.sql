-- Repository metadata kept beside the git repositories: branch protection
-- rules, release notes of tags and comments on commits. Each goes with its
-- project (ON DELETE CASCADE).
CREATE TABLE IF NOT EXISTS protected_branches (
    id {{.ID}},
    project_id BIGINT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    developers_can_push BOOLEAN NOT NULL DEFAULT FALSE,
    developers_can_merge BOOLEAN NOT NULL DEFAULT FALSE,
    created_at {{.Time}} NOT NULL
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS protected_branches_project_id_name_key ON protected_branches (project_id, name);
--bun:split
CREATE TABLE IF NOT EXISTS releases (
    project_id BIGINT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    tag_name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS releases_project_id_tag_name_key ON releases (project_id, tag_name);
--bun:split
-- author_id has no foreign key, like the authors of events: a comment is
-- history and outlives the account that wrote it.
CREATE TABLE IF NOT EXISTS commit_comments (
    id {{.ID}},
    project_id BIGINT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    commit_id TEXT NOT NULL,
    author_id BIGINT NOT NULL,
    note TEXT NOT NULL,
    path TEXT,
    line INTEGER,
    line_type TEXT,
    created_at {{.Time}} NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS commit_comments_project_id_commit_id_idx ON commit_comments (project_id, commit_id, id);
