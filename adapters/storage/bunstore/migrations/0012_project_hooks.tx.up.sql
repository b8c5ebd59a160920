-- Project webhooks (GitLab's web_hooks of type ProjectHook). token is kept
-- as given: it is sent back verbatim as X-Gitlab-Token, so it cannot be a
-- digest; the API never shows it. failure_count and disabled_until are for
-- disabling a failing hook for a while (not used yet).
CREATE TABLE IF NOT EXISTS project_hooks (
    id {{.ID}},
    project_id BIGINT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
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
    updated_at {{.Time}} NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS project_hooks_project_id_idx ON project_hooks (project_id, id);
