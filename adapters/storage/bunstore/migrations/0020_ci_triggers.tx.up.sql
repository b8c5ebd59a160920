-- Pipeline triggers (GitLab's ci_triggers) and the requests that ran
-- pipelines with them (ci_trigger_requests).
--
-- A trigger keeps only the digest of its token (found by it, so unique)
-- and the few characters lists show. Its owner's deletion takes the
-- trigger with it, as GitLab's User has_many :triggers, dependent:
-- :destroy: an ownerless trigger would run as nobody. A request belongs
-- to its pipeline (one each) and outlives its trigger, so that a deleted
-- trigger's pipelines keep their variables; variables are a JSON array of
-- {"key","value"} objects.
CREATE TABLE IF NOT EXISTS ci_triggers (
    id {{.ID}},
    project_id BIGINT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    owner_id BIGINT REFERENCES users (id) ON DELETE CASCADE,
    description TEXT NOT NULL DEFAULT '',
    token_digest TEXT NOT NULL,
    token_hint TEXT NOT NULL DEFAULT '',
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL,
    last_used_at {{.Time}}
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS ci_triggers_token_digest_key ON ci_triggers (token_digest);
--bun:split
CREATE INDEX IF NOT EXISTS ci_triggers_project_idx ON ci_triggers (project_id, id);
--bun:split
CREATE INDEX IF NOT EXISTS ci_triggers_owner_idx ON ci_triggers (owner_id);
--bun:split
CREATE TABLE IF NOT EXISTS ci_trigger_requests (
    id {{.ID}},
    trigger_id BIGINT REFERENCES ci_triggers (id) ON DELETE SET NULL,
    pipeline_id BIGINT NOT NULL REFERENCES ci_pipelines (id) ON DELETE CASCADE,
    variables TEXT NOT NULL DEFAULT '[]',
    created_at {{.Time}} NOT NULL
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS ci_trigger_requests_pipeline_key ON ci_trigger_requests (pipeline_id);
--bun:split
CREATE INDEX IF NOT EXISTS ci_trigger_requests_trigger_idx ON ci_trigger_requests (trigger_id);
