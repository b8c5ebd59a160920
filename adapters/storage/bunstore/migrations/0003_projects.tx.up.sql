-- Namespaces (personal namespaces and nested groups), projects, memberships
-- of both, project shares with groups, and stars.
--
-- full_path is denormalised (the slash-joined paths from the top) so that
-- lookups by path are one indexed query; NamespaceStore.Update rewrites it
-- for a whole subtree in the transaction that renames or moves a group.
CREATE TABLE IF NOT EXISTS namespaces (
    id {{.ID}},
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    path TEXT NOT NULL,
    full_path TEXT NOT NULL,
    parent_id BIGINT REFERENCES namespaces (id) ON DELETE CASCADE,
    owner_id BIGINT REFERENCES users (id) ON DELETE CASCADE,
    description TEXT NOT NULL DEFAULT '',
    visibility TEXT NOT NULL DEFAULT 'private',
    lfs_enabled BOOLEAN NOT NULL DEFAULT TRUE,
    request_access_enabled BOOLEAN NOT NULL DEFAULT FALSE,
    avatar_url TEXT NOT NULL DEFAULT '',
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL
);
--bun:split
-- Covers top-level groups against personal namespaces too: both are top-level.
CREATE UNIQUE INDEX IF NOT EXISTS namespaces_full_path_key ON namespaces (lower(full_path));
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS namespaces_path_key ON namespaces (coalesce(parent_id, 0), lower(path));
--bun:split
-- One personal namespace per user.
CREATE UNIQUE INDEX IF NOT EXISTS namespaces_owner_id_key ON namespaces (owner_id) WHERE owner_id IS NOT NULL;
--bun:split
CREATE INDEX IF NOT EXISTS namespaces_parent_id_idx ON namespaces (parent_id);
--bun:split
CREATE INDEX IF NOT EXISTS namespaces_kind_name_idx ON namespaces (kind, name);
--bun:split
CREATE INDEX IF NOT EXISTS namespaces_visibility_idx ON namespaces (visibility);
--bun:split
CREATE TABLE IF NOT EXISTS projects (
    id {{.ID}},
    namespace_id BIGINT NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    path TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    default_branch TEXT NOT NULL DEFAULT '',
    visibility TEXT NOT NULL DEFAULT 'private',
    issues_enabled BOOLEAN NOT NULL DEFAULT TRUE,
    merge_requests_enabled BOOLEAN NOT NULL DEFAULT TRUE,
    jobs_enabled BOOLEAN NOT NULL DEFAULT TRUE,
    wiki_enabled BOOLEAN NOT NULL DEFAULT TRUE,
    snippets_enabled BOOLEAN NOT NULL DEFAULT TRUE,
    container_registry_enabled BOOLEAN NOT NULL DEFAULT FALSE,
    shared_runners_enabled BOOLEAN NOT NULL DEFAULT TRUE,
    public_jobs BOOLEAN NOT NULL DEFAULT TRUE,
    only_allow_merge_if_pipeline_succeeds BOOLEAN NOT NULL DEFAULT FALSE,
    only_allow_merge_if_all_discussions_are_resolved BOOLEAN NOT NULL DEFAULT FALSE,
    lfs_enabled BOOLEAN NOT NULL DEFAULT TRUE,
    request_access_enabled BOOLEAN NOT NULL DEFAULT FALSE,
    printing_merge_request_link_enabled BOOLEAN NOT NULL DEFAULT TRUE,
    archived BOOLEAN NOT NULL DEFAULT FALSE,
    -- No foreign key: a project outlives the account that created it.
    creator_id BIGINT NOT NULL DEFAULT 0,
    forked_from_id BIGINT REFERENCES projects (id) ON DELETE SET NULL,
    import_url TEXT NOT NULL DEFAULT '',
    import_status TEXT NOT NULL DEFAULT 'none',
    import_error TEXT NOT NULL DEFAULT '',
    star_count INTEGER NOT NULL DEFAULT 0,
    forks_count INTEGER NOT NULL DEFAULT 0,
    open_issues_count INTEGER NOT NULL DEFAULT 0,
    -- A JSON array of strings.
    tag_list TEXT NOT NULL DEFAULT '[]',
    ci_config_path TEXT NOT NULL DEFAULT '',
    avatar_url TEXT NOT NULL DEFAULT '',
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL,
    last_activity_at {{.Time}} NOT NULL
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS projects_path_key ON projects (namespace_id, lower(path));
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS projects_name_key ON projects (namespace_id, lower(name));
--bun:split
CREATE INDEX IF NOT EXISTS projects_visibility_idx ON projects (visibility);
--bun:split
CREATE INDEX IF NOT EXISTS projects_created_at_idx ON projects (created_at, id);
--bun:split
CREATE INDEX IF NOT EXISTS projects_updated_at_idx ON projects (updated_at, id);
--bun:split
CREATE INDEX IF NOT EXISTS projects_last_activity_at_idx ON projects (last_activity_at, id);
--bun:split
CREATE INDEX IF NOT EXISTS projects_name_idx ON projects (name, id);
--bun:split
CREATE INDEX IF NOT EXISTS projects_path_idx ON projects (path, id);
--bun:split
CREATE INDEX IF NOT EXISTS projects_archived_idx ON projects (archived);
--bun:split
CREATE INDEX IF NOT EXISTS projects_import_status_idx ON projects (import_status);
--bun:split
CREATE INDEX IF NOT EXISTS projects_forked_from_id_idx ON projects (forked_from_id);
--bun:split
CREATE INDEX IF NOT EXISTS projects_creator_id_idx ON projects (creator_id);
--bun:split
-- Memberships of projects and groups. source_id points at projects or
-- namespaces depending on source, so it has no foreign key: the stores
-- delete memberships with their project or namespace.
CREATE TABLE IF NOT EXISTS members (
    source TEXT NOT NULL,
    source_id BIGINT NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    access_level INTEGER NOT NULL,
    expires_at {{.Time}},
    created_at {{.Time}} NOT NULL,
    created_by BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (source, source_id, user_id)
);
--bun:split
CREATE INDEX IF NOT EXISTS members_user_id_idx ON members (user_id);
--bun:split
CREATE TABLE IF NOT EXISTS project_shares (
    project_id BIGINT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    group_id BIGINT NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE,
    group_access INTEGER NOT NULL,
    expires_at {{.Time}},
    created_at {{.Time}} NOT NULL,
    PRIMARY KEY (project_id, group_id)
);
--bun:split
CREATE INDEX IF NOT EXISTS project_shares_group_id_idx ON project_shares (group_id);
--bun:split
CREATE TABLE IF NOT EXISTS project_stars (
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    project_id BIGINT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    created_at {{.Time}} NOT NULL,
    PRIMARY KEY (user_id, project_id)
);
--bun:split
CREATE INDEX IF NOT EXISTS project_stars_project_id_idx ON project_stars (project_id);
--bun:split
-- Every existing user gets a public personal namespace named after them.
INSERT INTO namespaces (kind, name, path, full_path, parent_id, owner_id, description, visibility,
                        lfs_enabled, request_access_enabled, avatar_url, created_at, updated_at)
SELECT 'user', coalesce(nullif(u.name, ''), u.username), u.username, u.username, NULL, u.id, '', 'public',
       TRUE, FALSE, '', u.created_at, u.updated_at
FROM users u
WHERE NOT EXISTS (SELECT 1 FROM namespaces n WHERE n.owner_id = u.id)
ORDER BY u.id;
