-- System hooks share the outbox with project hooks, so both live in
-- GitLab's one web_hooks table, told apart by type: a project hook has a
-- project, a system hook none. project_hooks moves there keeping its ids,
-- and hook_deliveries is rebuilt to reference web_hooks (SQLite cannot
-- change a foreign key in place), gaining last_response, the start of the
-- last response's body. Order matters on SQLite, where foreign keys are on
-- and DROP TABLE deletes its rows first: the old deliveries go before the
-- old hooks, or dropping the hooks would cascade into them.
CREATE TABLE web_hooks (
    id {{.ID}},
    type TEXT NOT NULL DEFAULT 'ProjectHook',
    project_id BIGINT REFERENCES projects (id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    token TEXT NOT NULL DEFAULT '',
    push_events BOOLEAN NOT NULL DEFAULT TRUE,
    tag_push_events BOOLEAN NOT NULL DEFAULT FALSE,
    issues_events BOOLEAN NOT NULL DEFAULT FALSE,
    confidential_issues_events BOOLEAN NOT NULL DEFAULT FALSE,
    merge_requests_events BOOLEAN NOT NULL DEFAULT FALSE,
    note_events BOOLEAN NOT NULL DEFAULT FALSE,
    job_events BOOLEAN NOT NULL DEFAULT FALSE,
    pipeline_events BOOLEAN NOT NULL DEFAULT FALSE,
    wiki_page_events BOOLEAN NOT NULL DEFAULT FALSE,
    enable_ssl_verification BOOLEAN NOT NULL DEFAULT TRUE,
    failure_count INTEGER NOT NULL DEFAULT 0,
    disabled_until {{.Time}},
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL,
    CONSTRAINT web_hooks_type_project_check CHECK (
        (type = 'ProjectHook' AND project_id IS NOT NULL) OR (type = 'SystemHook' AND project_id IS NULL))
);
--bun:split
INSERT INTO web_hooks (id, type, project_id, url, token, push_events, tag_push_events, issues_events,
    confidential_issues_events, merge_requests_events, note_events, job_events, pipeline_events,
    wiki_page_events, enable_ssl_verification, failure_count, disabled_until, created_at, updated_at)
SELECT id, 'ProjectHook', project_id, url, token, push_events, tag_push_events, issues_events,
    confidential_issues_events, merge_requests_events, note_events, job_events, pipeline_events,
    wiki_page_events, enable_ssl_verification, failure_count, disabled_until, created_at, updated_at
FROM project_hooks;
--bun:split
CREATE TABLE hook_deliveries_new (
    id {{.ID}},
    hook_id BIGINT NOT NULL REFERENCES web_hooks (id) ON DELETE CASCADE,
    event TEXT NOT NULL,
    payload TEXT NOT NULL DEFAULT '{}',
    state TEXT NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL DEFAULT 1,
    next_attempt_at {{.Time}} NOT NULL,
    claimed_by TEXT NOT NULL DEFAULT '',
    claim_expires_at {{.Time}},
    last_status INTEGER,
    last_error TEXT NOT NULL DEFAULT '',
    last_duration_ms BIGINT NOT NULL DEFAULT 0,
    last_response TEXT NOT NULL DEFAULT '',
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL,
    delivered_at {{.Time}}
);
--bun:split
INSERT INTO hook_deliveries_new (id, hook_id, event, payload, state, attempts, max_attempts, next_attempt_at,
    claimed_by, claim_expires_at, last_status, last_error, last_duration_ms, created_at, updated_at, delivered_at)
SELECT id, hook_id, event, payload, state, attempts, max_attempts, next_attempt_at,
    claimed_by, claim_expires_at, last_status, last_error, last_duration_ms, created_at, updated_at, delivered_at
FROM hook_deliveries;
--bun:split
DROP TABLE hook_deliveries;
--bun:split
DROP TABLE project_hooks;
--bun:split
ALTER TABLE hook_deliveries_new RENAME TO hook_deliveries;
{{if .Postgres}}
--bun:split
-- The rename keeps the new table's generated names; give it the old ones.
ALTER SEQUENCE hook_deliveries_new_id_seq RENAME TO hook_deliveries_id_seq;
--bun:split
ALTER INDEX hook_deliveries_new_pkey RENAME TO hook_deliveries_pkey;
--bun:split
ALTER TABLE hook_deliveries RENAME CONSTRAINT hook_deliveries_new_hook_id_fkey TO hook_deliveries_hook_id_fkey;
--bun:split
-- Rows were copied with their ids: the sequences start after them.
SELECT setval(pg_get_serial_sequence('web_hooks', 'id'), COALESCE((SELECT MAX(id) FROM web_hooks), 0) + 1, false);
--bun:split
SELECT setval(pg_get_serial_sequence('hook_deliveries', 'id'), COALESCE((SELECT MAX(id) FROM hook_deliveries), 0) + 1, false);
{{end}}
--bun:split
-- A project's hooks by id, and the hooks of an event's project.
CREATE INDEX web_hooks_project_id_idx ON web_hooks (project_id, id);
--bun:split
-- The system hooks by id.
CREATE INDEX web_hooks_type_idx ON web_hooks (type, id);
--bun:split
-- Claim: the due pending rows (and running ones) in next_attempt_at order.
CREATE INDEX hook_deliveries_claim_idx ON hook_deliveries (state, next_attempt_at, id);
--bun:split
-- A hook's recent deliveries, newest first.
CREATE INDEX hook_deliveries_hook_idx ON hook_deliveries (hook_id, created_at);
