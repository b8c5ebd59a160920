-- A project's merge requests listed in every state (state=all, and
-- opened, which means two states) are ordered by created_at: without this
-- index the database sorts every row of the project before taking a page.
CREATE INDEX IF NOT EXISTS merge_requests_project_created_idx ON merge_requests (project_id, created_at, id);
