-- CI: pipelines, their jobs (CI jobs and commit statuses), job tags, trace
-- chunks, artifacts, runners with their projects, project runner
-- registration tokens and CI variables.
--
-- Users (pipelines' and jobs' user_id, erased_by) carry no foreign key:
-- pipelines are history and outlive the account.
CREATE TABLE IF NOT EXISTS ci_pipelines (
    id {{.ID}},
    project_id BIGINT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    ref TEXT NOT NULL,
    tag BOOLEAN NOT NULL DEFAULT FALSE,
    sha TEXT NOT NULL,
    before_sha TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT '',
    user_id BIGINT,
    yaml_errors TEXT NOT NULL DEFAULT '',
    config_path TEXT NOT NULL DEFAULT '',
    coverage {{if .Postgres}}DOUBLE PRECISION{{else}}REAL{{end}},
    duration INTEGER,
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL,
    started_at {{.Time}},
    finished_at {{.Time}},
    committed_at {{.Time}}
);
--bun:split
-- A project's pipelines newest first, and the latest of each commit or ref.
CREATE INDEX IF NOT EXISTS ci_pipelines_project_idx ON ci_pipelines (project_id, id);
--bun:split
CREATE INDEX IF NOT EXISTS ci_pipelines_project_sha_idx ON ci_pipelines (project_id, sha, id);
--bun:split
CREATE INDEX IF NOT EXISTS ci_pipelines_project_ref_idx ON ci_pipelines (project_id, ref, id);
--bun:split
-- Runners. Tags are a JSON array of strings, read with the runner; Claim
-- takes the runner's tags from the runner it is given.
CREATE TABLE IF NOT EXISTS ci_runners (
    id {{.ID}},
    token_digest TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    active BOOLEAN NOT NULL DEFAULT TRUE,
    locked BOOLEAN NOT NULL DEFAULT FALSE,
    run_untagged BOOLEAN NOT NULL DEFAULT TRUE,
    tags TEXT NOT NULL DEFAULT '[]',
    is_shared BOOLEAN NOT NULL DEFAULT FALSE,
    access_level TEXT NOT NULL DEFAULT 'not_protected',
    maximum_timeout INTEGER NOT NULL DEFAULT 0,
    name TEXT NOT NULL DEFAULT '',
    version TEXT NOT NULL DEFAULT '',
    revision TEXT NOT NULL DEFAULT '',
    platform TEXT NOT NULL DEFAULT '',
    architecture TEXT NOT NULL DEFAULT '',
    ip_address TEXT NOT NULL DEFAULT '',
    contacted_at {{.Time}},
    created_at {{.Time}} NOT NULL
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS ci_runners_token_digest_key ON ci_runners (token_digest);
--bun:split
CREATE TABLE IF NOT EXISTS ci_runner_projects (
    runner_id BIGINT NOT NULL REFERENCES ci_runners (id) ON DELETE CASCADE,
    project_id BIGINT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    created_at {{.Time}} NOT NULL,
    PRIMARY KEY (runner_id, project_id)
);
--bun:split
CREATE INDEX IF NOT EXISTS ci_runner_projects_project_id_idx ON ci_runner_projects (project_id);
--bun:split
-- A project's runner registration token, as a digest (runners_token).
CREATE TABLE IF NOT EXISTS ci_registration_tokens (
    project_id BIGINT PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    digest TEXT NOT NULL
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS ci_registration_tokens_digest_key ON ci_registration_tokens (digest);
--bun:split
-- Jobs. spec is the JobSpec as JSON (only the runner reads it); tags are a
-- JSON array of strings, which Claim matches row by row against the
-- runner's (json_each on SQLite, jsonb containment on Postgres).
-- token_digest is NULL until a runner takes the job. "when" is an SQL
-- keyword, hence run_when.
CREATE TABLE IF NOT EXISTS ci_jobs (
    id {{.ID}},
    project_id BIGINT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    pipeline_id BIGINT NOT NULL REFERENCES ci_pipelines (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    stage TEXT NOT NULL DEFAULT '',
    stage_idx INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL,
    ref TEXT NOT NULL DEFAULT '',
    tag BOOLEAN NOT NULL DEFAULT FALSE,
    sha TEXT NOT NULL DEFAULT '',
    protected BOOLEAN NOT NULL DEFAULT FALSE,
    run_when TEXT NOT NULL DEFAULT '',
    allow_failure BOOLEAN NOT NULL DEFAULT FALSE,
    user_id BIGINT,
    runner_id BIGINT REFERENCES ci_runners (id) ON DELETE SET NULL,
    token_digest TEXT,
    tags TEXT NOT NULL DEFAULT '[]',
    spec TEXT NOT NULL DEFAULT '{}',
    coverage {{if .Postgres}}DOUBLE PRECISION{{else}}REAL{{end}},
    description TEXT NOT NULL DEFAULT '',
    target_url TEXT NOT NULL DEFAULT '',
    failure_reason TEXT NOT NULL DEFAULT '',
    trace_size BIGINT NOT NULL DEFAULT 0,
    artifacts_expire_at {{.Time}},
    erased_at {{.Time}},
    erased_by BIGINT,
    retried BOOLEAN NOT NULL DEFAULT FALSE,
    attempt INTEGER NOT NULL DEFAULT 0,
    runner_finished BOOLEAN NOT NULL DEFAULT FALSE,
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL,
    queued_at {{.Time}},
    started_at {{.Time}},
    finished_at {{.Time}}
);
--bun:split
-- Job hand-out: the pending CI jobs of each project, oldest first. It
-- carries what Claim matches (tags, protected), so that it covers Claim's
-- query and is the smallest index the planner can read it from.
CREATE INDEX IF NOT EXISTS ci_jobs_pending_idx ON ci_jobs {{if .Postgres}}(project_id, id) INCLUDE (tags, protected){{else}}(project_id, id, tags, protected){{end}} WHERE status = 'pending' AND kind = 'build';
--bun:split
-- The sweep of stuck jobs: running ones by last update, pending by queue time.
CREATE INDEX IF NOT EXISTS ci_jobs_running_updated_idx ON ci_jobs (updated_at, id) WHERE status = 'running' AND kind = 'build';
--bun:split
CREATE INDEX IF NOT EXISTS ci_jobs_pending_queued_idx ON ci_jobs (queued_at, id) WHERE status = 'pending' AND kind = 'build';
--bun:split
-- A project's jobs newest first; a pipeline's by stage; a commit's statuses;
-- a runner's jobs.
CREATE INDEX IF NOT EXISTS ci_jobs_project_idx ON ci_jobs (project_id, id);
--bun:split
CREATE INDEX IF NOT EXISTS ci_jobs_pipeline_idx ON ci_jobs (pipeline_id, stage_idx, id);
--bun:split
CREATE INDEX IF NOT EXISTS ci_jobs_project_sha_idx ON ci_jobs (project_id, sha, id);
--bun:split
CREATE INDEX IF NOT EXISTS ci_jobs_runner_idx ON ci_jobs (runner_id, id);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS ci_jobs_token_digest_key ON ci_jobs (token_digest);
--bun:split
-- A running job's trace, one row per append (offset is where it starts), so
-- an append never rewrites what came before.
CREATE TABLE IF NOT EXISTS ci_trace_chunks (
    job_id BIGINT NOT NULL REFERENCES ci_jobs (id) ON DELETE CASCADE,
    start_offset BIGINT NOT NULL,
    data {{if .Postgres}}BYTEA{{else}}BLOB{{end}} NOT NULL,
    PRIMARY KEY (job_id, start_offset)
);
--bun:split
CREATE TABLE IF NOT EXISTS ci_artifacts (
    id {{.ID}},
    job_id BIGINT NOT NULL REFERENCES ci_jobs (id) ON DELETE CASCADE,
    project_id BIGINT NOT NULL,
    artifact_type TEXT NOT NULL,
    format TEXT NOT NULL DEFAULT '',
    filename TEXT NOT NULL DEFAULT '',
    size BIGINT NOT NULL DEFAULT 0,
    blob_key TEXT NOT NULL,
    sha256 TEXT NOT NULL DEFAULT '',
    expire_at {{.Time}},
    created_at {{.Time}} NOT NULL
);
--bun:split
-- One artifact of each type per job.
CREATE UNIQUE INDEX IF NOT EXISTS ci_artifacts_job_type_key ON ci_artifacts (job_id, artifact_type);
--bun:split
CREATE INDEX IF NOT EXISTS ci_artifacts_expire_at_idx ON ci_artifacts (expire_at, id) WHERE expire_at IS NOT NULL;
--bun:split
CREATE TABLE IF NOT EXISTS ci_variables (
    id {{.ID}},
    project_id BIGINT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL DEFAULT '',
    protected BOOLEAN NOT NULL DEFAULT FALSE,
    masked BOOLEAN NOT NULL DEFAULT FALSE,
    public BOOLEAN NOT NULL DEFAULT FALSE
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS ci_variables_project_key_key ON ci_variables (project_id, key);
--bun:split
-- The queue version runners send back as last_update: bumped whenever a job
-- becomes pending (in the transaction on SQLite; after commit from a
-- sequence on Postgres, which never blocks concurrent writers).
{{if .Postgres}}CREATE SEQUENCE IF NOT EXISTS ci_queue_version{{else}}CREATE TABLE IF NOT EXISTS ci_queue (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    version BIGINT NOT NULL
);
--bun:split
INSERT INTO ci_queue (id, version) SELECT 1, 1 WHERE NOT EXISTS (SELECT 1 FROM ci_queue){{end}};
