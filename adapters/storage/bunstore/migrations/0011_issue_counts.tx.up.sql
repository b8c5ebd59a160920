-- Every project answer carries open_issues_count, and counting a project's
-- open issues on each request cost more than the rest of GET /projects/:id
-- together, growing with the project's history. issue_counts keeps, per
-- project, the open issues and the open confidential ones. Triggers keep it
-- exact in the transaction of every insert, update and delete of an issue,
-- whichever code path (or cascade) makes it, so no store method can forget
-- it. IssueStore.CountOpen answers from it (see there for confidential
-- issues).
CREATE TABLE IF NOT EXISTS issue_counts (
    project_id BIGINT PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    open_count BIGINT NOT NULL DEFAULT 0,
    open_confidential_count BIGINT NOT NULL DEFAULT 0
);
--bun:split
INSERT INTO issue_counts (project_id, open_count, open_confidential_count)
SELECT project_id, count(*), sum(CASE WHEN confidential THEN 1 ELSE 0 END)
FROM issues WHERE state IN ('opened', 'reopened') GROUP BY project_id
ON CONFLICT (project_id) DO NOTHING;
{{if .Postgres}}
--bun:split
CREATE OR REPLACE FUNCTION issues_count_open() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.state = NEW.state AND OLD.confidential = NEW.confidential
        AND OLD.project_id = NEW.project_id THEN
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.state IN ('opened', 'reopened') THEN
        UPDATE issue_counts SET open_count = open_count - 1,
            open_confidential_count = open_confidential_count - (CASE WHEN OLD.confidential THEN 1 ELSE 0 END)
        WHERE project_id = OLD.project_id;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.state IN ('opened', 'reopened') THEN
        INSERT INTO issue_counts (project_id, open_count, open_confidential_count)
        VALUES (NEW.project_id, 1, CASE WHEN NEW.confidential THEN 1 ELSE 0 END)
        ON CONFLICT (project_id) DO UPDATE SET open_count = issue_counts.open_count + 1,
            open_confidential_count = issue_counts.open_confidential_count + excluded.open_confidential_count;
    END IF;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
--bun:split
DROP TRIGGER IF EXISTS issues_count_open ON issues;
--bun:split
CREATE TRIGGER issues_count_open AFTER INSERT OR DELETE OR UPDATE OF state, confidential, project_id
ON issues FOR EACH ROW EXECUTE FUNCTION issues_count_open();
{{else}}
--bun:split
CREATE TRIGGER IF NOT EXISTS issues_count_insert AFTER INSERT ON issues
WHEN NEW.state IN ('opened', 'reopened')
BEGIN
    INSERT INTO issue_counts (project_id, open_count, open_confidential_count)
    VALUES (NEW.project_id, 1, CASE WHEN NEW.confidential THEN 1 ELSE 0 END)
    ON CONFLICT (project_id) DO UPDATE SET open_count = open_count + 1,
        open_confidential_count = open_confidential_count + excluded.open_confidential_count;
END;
--bun:split
CREATE TRIGGER IF NOT EXISTS issues_count_delete AFTER DELETE ON issues
WHEN OLD.state IN ('opened', 'reopened')
BEGIN
    UPDATE issue_counts SET open_count = open_count - 1,
        open_confidential_count = open_confidential_count - (CASE WHEN OLD.confidential THEN 1 ELSE 0 END)
    WHERE project_id = OLD.project_id;
END;
--bun:split
CREATE TRIGGER IF NOT EXISTS issues_count_update AFTER UPDATE OF state, confidential, project_id ON issues
WHEN OLD.state IS NOT NEW.state OR OLD.confidential IS NOT NEW.confidential OR OLD.project_id IS NOT NEW.project_id
BEGIN
    UPDATE issue_counts SET open_count = open_count - 1,
        open_confidential_count = open_confidential_count - (CASE WHEN OLD.confidential THEN 1 ELSE 0 END)
    WHERE project_id = OLD.project_id AND OLD.state IN ('opened', 'reopened');
    INSERT INTO issue_counts (project_id, open_count, open_confidential_count)
    SELECT NEW.project_id, 1, CASE WHEN NEW.confidential THEN 1 ELSE 0 END
    WHERE NEW.state IN ('opened', 'reopened')
    ON CONFLICT (project_id) DO UPDATE SET open_count = open_count + 1,
        open_confidential_count = open_confidential_count + excluded.open_confidential_count;
END;
{{end}}
