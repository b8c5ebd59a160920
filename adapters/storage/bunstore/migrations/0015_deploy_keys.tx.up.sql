-- Deploy keys (GitLab's keys of type DeployKey) and the projects they are
-- enabled for.
--
-- GitLab keeps users' and deploy keys in one keys table with a type column
-- and a unique fingerprint. Hearth keeps deploy keys in their own table
-- instead: their user_id is who added the key and goes NULL with that user,
-- while a user's key goes with its user (ON DELETE CASCADE), and one foreign
-- key cannot do both; ssh_keys also stays as it is, so no table is rebuilt
-- and no key changes id. A fingerprint is still taken once across both
-- tables: every key, of either kind, owns a row of key_fingerprints, whose
-- unique index the database enforces (two concurrent creations of one key
-- cannot both commit, on Postgres as on SQLite). Each row points at its key
-- and goes with it (ON DELETE CASCADE), also when a user's deletion takes
-- their keys.
CREATE TABLE IF NOT EXISTS deploy_keys (
    id {{.ID}},
    user_id BIGINT REFERENCES users (id) ON DELETE SET NULL,
    title TEXT NOT NULL DEFAULT '',
    "key" TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    can_push BOOLEAN NOT NULL DEFAULT FALSE,
    created_at {{.Time}} NOT NULL
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS deploy_keys_fingerprint_key ON deploy_keys (fingerprint);
--bun:split
CREATE INDEX IF NOT EXISTS deploy_keys_user_id_idx ON deploy_keys (user_id);
--bun:split
CREATE TABLE IF NOT EXISTS deploy_keys_projects (
    deploy_key_id BIGINT NOT NULL REFERENCES deploy_keys (id) ON DELETE CASCADE,
    project_id BIGINT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    created_at {{.Time}} NOT NULL,
    PRIMARY KEY (deploy_key_id, project_id)
);
--bun:split
CREATE INDEX IF NOT EXISTS deploy_keys_projects_project_id_idx ON deploy_keys_projects (project_id, deploy_key_id);
--bun:split
CREATE TABLE IF NOT EXISTS key_fingerprints (
    fingerprint TEXT NOT NULL,
    ssh_key_id BIGINT REFERENCES ssh_keys (id) ON DELETE CASCADE,
    deploy_key_id BIGINT REFERENCES deploy_keys (id) ON DELETE CASCADE,
    CHECK ((ssh_key_id IS NULL) <> (deploy_key_id IS NULL))
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS key_fingerprints_fingerprint_key ON key_fingerprints (fingerprint);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS key_fingerprints_ssh_key_id_key ON key_fingerprints (ssh_key_id);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS key_fingerprints_deploy_key_id_key ON key_fingerprints (deploy_key_id);
--bun:split
INSERT INTO key_fingerprints (fingerprint, ssh_key_id) SELECT fingerprint, id FROM ssh_keys;
