-- Merge requests with their labels and IID counters, notes (comments and
-- system notes on any noteable), users' todos and explicit subscriptions.
--
-- author_id, merge_user_id and the authors of notes and todos carry no
-- foreign key, like the authors of events: they are history and outlive
-- the account. source_project_id has none either: a merge request from a
-- fork stays in its target project when the fork goes.
CREATE TABLE IF NOT EXISTS merge_requests (
    id {{.ID}},
    iid BIGINT NOT NULL,
    project_id BIGINT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    source_project_id BIGINT NOT NULL,
    target_project_id BIGINT NOT NULL,
    title TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL,
    source_branch TEXT NOT NULL,
    target_branch TEXT NOT NULL,
    author_id BIGINT NOT NULL,
    assignee_id BIGINT REFERENCES users (id) ON DELETE SET NULL,
    -- Milestones belong to the issues module: no foreign key.
    milestone_id BIGINT,
    merge_status TEXT NOT NULL DEFAULT 'unchecked',
    source_sha TEXT NOT NULL DEFAULT '',
    target_sha TEXT NOT NULL DEFAULT '',
    base_sha TEXT NOT NULL DEFAULT '',
    merge_when_pipeline_succeeds BOOLEAN NOT NULL DEFAULT FALSE,
    merge_user_id BIGINT,
    merge_commit_message TEXT NOT NULL DEFAULT '',
    should_remove_source_branch BOOLEAN NOT NULL DEFAULT FALSE,
    force_remove_source_branch BOOLEAN NOT NULL DEFAULT FALSE,
    pipeline_succeeded_sha TEXT NOT NULL DEFAULT '',
    merge_commit_sha TEXT,
    in_flight_sha TEXT NOT NULL DEFAULT '',
    locked_at {{.Time}},
    upvotes INTEGER NOT NULL DEFAULT 0,
    downvotes INTEGER NOT NULL DEFAULT 0,
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL,
    merged_at {{.Time}},
    closed_at {{.Time}}
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS merge_requests_project_id_iid_key ON merge_requests (project_id, iid);
--bun:split
-- One open merge request per source and target branch pair. It also serves
-- the source-branch lookups of OpenOnBranch.
CREATE UNIQUE INDEX IF NOT EXISTS merge_requests_open_key
    ON merge_requests (source_project_id, source_branch, target_project_id, target_branch)
    WHERE state IN ('opened', 'reopened');
--bun:split
CREATE INDEX IF NOT EXISTS merge_requests_project_state_created_idx ON merge_requests (project_id, state, created_at, id);
--bun:split
CREATE INDEX IF NOT EXISTS merge_requests_project_updated_idx ON merge_requests (project_id, updated_at, id);
--bun:split
CREATE INDEX IF NOT EXISTS merge_requests_created_idx ON merge_requests (created_at, id);
--bun:split
CREATE INDEX IF NOT EXISTS merge_requests_updated_idx ON merge_requests (updated_at, id);
--bun:split
CREATE INDEX IF NOT EXISTS merge_requests_author_id_idx ON merge_requests (author_id);
--bun:split
CREATE INDEX IF NOT EXISTS merge_requests_assignee_id_idx ON merge_requests (assignee_id);
--bun:split
CREATE INDEX IF NOT EXISTS merge_requests_milestone_id_idx ON merge_requests (milestone_id);
--bun:split
CREATE INDEX IF NOT EXISTS merge_requests_source_branch_idx ON merge_requests (source_project_id, source_branch);
--bun:split
CREATE INDEX IF NOT EXISTS merge_requests_target_branch_idx ON merge_requests (project_id, target_branch);
--bun:split
CREATE INDEX IF NOT EXISTS merge_requests_locked_at_idx ON merge_requests (locked_at) WHERE locked_at IS NOT NULL;
--bun:split
-- The last IID handed out per project: Create moves it in the transaction
-- that inserts the merge request, so concurrent creates queue on the row
-- and IIDs are never reused, even after a delete.
CREATE TABLE IF NOT EXISTS merge_request_iids (
    project_id BIGINT PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    last_iid BIGINT NOT NULL
);
--bun:split
CREATE TABLE IF NOT EXISTS merge_request_labels (
    merge_request_id BIGINT NOT NULL REFERENCES merge_requests (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    PRIMARY KEY (merge_request_id, name)
);
--bun:split
CREATE INDEX IF NOT EXISTS merge_request_labels_name_idx ON merge_request_labels (name, merge_request_id);
--bun:split
-- noteable_id points at issues, merge requests, snippets... depending on
-- noteable_type, so it has no foreign key.
CREATE TABLE IF NOT EXISTS notes (
    id {{.ID}},
    project_id BIGINT REFERENCES projects (id) ON DELETE CASCADE,
    noteable_type TEXT NOT NULL,
    noteable_id BIGINT NOT NULL,
    author_id BIGINT NOT NULL,
    body TEXT NOT NULL,
    system BOOLEAN NOT NULL DEFAULT FALSE,
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS notes_noteable_idx ON notes (noteable_type, noteable_id, id);
--bun:split
CREATE INDEX IF NOT EXISTS notes_project_id_idx ON notes (project_id);
--bun:split
CREATE TABLE IF NOT EXISTS todos (
    id {{.ID}},
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    project_id BIGINT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    author_id BIGINT NOT NULL,
    target_type TEXT NOT NULL,
    target_id BIGINT NOT NULL,
    action TEXT NOT NULL,
    state TEXT NOT NULL,
    body TEXT NOT NULL DEFAULT '',
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL
);
--bun:split
-- At most one pending todo per user, target and action: CreatePending
-- inserts and, on a conflict, returns the pending one.
CREATE UNIQUE INDEX IF NOT EXISTS todos_pending_key ON todos (user_id, target_type, target_id, action) WHERE state = 'pending';
--bun:split
CREATE INDEX IF NOT EXISTS todos_user_state_created_idx ON todos (user_id, state, created_at, id);
--bun:split
CREATE INDEX IF NOT EXISTS todos_target_idx ON todos (target_type, target_id);
--bun:split
CREATE INDEX IF NOT EXISTS todos_project_id_idx ON todos (project_id);
--bun:split
CREATE TABLE IF NOT EXISTS subscriptions (
    subject_type TEXT NOT NULL,
    subject_id BIGINT NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    subscribed BOOLEAN NOT NULL,
    PRIMARY KEY (subject_type, subject_id, user_id)
);
--bun:split
CREATE INDEX IF NOT EXISTS subscriptions_user_id_idx ON subscriptions (user_id, subject_type, subject_id);
