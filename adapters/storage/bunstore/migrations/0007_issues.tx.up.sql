-- Issues with their labels and IID counters, milestones, project labels and
-- award emoji.
--
-- author_id carries no foreign key, as for merge requests: issues are
-- history and outlive the account. milestone_id has none either (merge
-- requests' has none): deleting a milestone clears it on both in one
-- transaction.
CREATE TABLE IF NOT EXISTS issues (
    id {{.ID}},
    iid BIGINT NOT NULL,
    project_id BIGINT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL,
    author_id BIGINT NOT NULL,
    assignee_id BIGINT REFERENCES users (id) ON DELETE SET NULL,
    milestone_id BIGINT,
    confidential BOOLEAN NOT NULL DEFAULT FALSE,
    due_date {{.Time}},
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL,
    closed_at {{.Time}}
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS issues_project_id_iid_key ON issues (project_id, iid);
--bun:split
-- A project's issues in every state, or in one, newest or oldest first.
CREATE INDEX IF NOT EXISTS issues_project_created_idx ON issues (project_id, created_at, id);
--bun:split
CREATE INDEX IF NOT EXISTS issues_project_state_created_idx ON issues (project_id, state, created_at, id);
--bun:split
CREATE INDEX IF NOT EXISTS issues_project_updated_idx ON issues (project_id, updated_at, id);
--bun:split
-- Lists across projects (GET /issues).
CREATE INDEX IF NOT EXISTS issues_created_idx ON issues (created_at, id);
--bun:split
CREATE INDEX IF NOT EXISTS issues_updated_idx ON issues (updated_at, id);
--bun:split
CREATE INDEX IF NOT EXISTS issues_author_id_idx ON issues (author_id);
--bun:split
CREATE INDEX IF NOT EXISTS issues_assignee_id_idx ON issues (assignee_id);
--bun:split
CREATE INDEX IF NOT EXISTS issues_milestone_id_idx ON issues (milestone_id);
--bun:split
-- The last issue IID handed out per project, moved by the transaction that
-- inserts the issue: concurrent creates queue on the row and IIDs are
-- never reused.
CREATE TABLE IF NOT EXISTS issue_iids (
    project_id BIGINT PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    last_iid BIGINT NOT NULL
);
--bun:split
CREATE TABLE IF NOT EXISTS issue_labels (
    issue_id BIGINT NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    PRIMARY KEY (issue_id, name)
);
--bun:split
CREATE INDEX IF NOT EXISTS issue_labels_name_idx ON issue_labels (name, issue_id);
--bun:split
-- Dates are stored as UTC midnights.
CREATE TABLE IF NOT EXISTS milestones (
    id {{.ID}},
    iid BIGINT NOT NULL,
    project_id BIGINT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL,
    due_date {{.Time}},
    start_date {{.Time}},
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS milestones_project_id_iid_key ON milestones (project_id, iid);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS milestones_project_id_title_key ON milestones (project_id, title);
--bun:split
CREATE INDEX IF NOT EXISTS milestones_project_due_date_idx ON milestones (project_id, due_date, id);
--bun:split
CREATE TABLE IF NOT EXISTS milestone_iids (
    project_id BIGINT PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    last_iid BIGINT NOT NULL
);
--bun:split
-- Issues and merge requests carry labels by name (issue_labels,
-- merge_request_labels); this table gives the project's names a color.
CREATE TABLE IF NOT EXISTS labels (
    id {{.ID}},
    project_id BIGINT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    color TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS labels_project_id_name_key ON labels (project_id, name);
--bun:split
-- awardable_id points at issues, merge requests, notes or snippets
-- depending on awardable_type, so it has no foreign key.
CREATE TABLE IF NOT EXISTS award_emoji (
    id {{.ID}},
    name TEXT NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    awardable_type TEXT NOT NULL,
    awardable_id BIGINT NOT NULL,
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS award_emoji_user_awardable_name_key ON award_emoji (user_id, awardable_type, awardable_id, name);
--bun:split
-- The awards of one awardable, and the votes counted by every issue read.
CREATE INDEX IF NOT EXISTS award_emoji_awardable_idx ON award_emoji (awardable_type, awardable_id);
