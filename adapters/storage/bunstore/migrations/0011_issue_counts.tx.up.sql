-- A project's open issue count (in every project answer) is answered from
-- this index alone: the confidentiality filter for readers who may not see
-- every confidential issue needs confidential, author_id and assignee_id
-- (IssueStore.CountOpen), which a table lookup per issue made cost more
-- than the rest of GET /projects/:id.
CREATE INDEX IF NOT EXISTS issues_project_open_count_idx ON issues (project_id, state, confidential, author_id, assignee_id);
