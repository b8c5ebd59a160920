-- Every project answer carries open_issues_count and every page of a
-- project's issues an X-Total; counting a project's issues for them cost
-- more than the rest of those requests together, growing with the
-- project's history. issue_counts keeps, per project, all its issues and
-- the open ones, each with how many of them are confidential. Triggers keep
-- it exact in the transaction of every insert, update and delete of an
-- issue, whichever code path (or cascade) makes it, so no store method can
-- forget it: each row's contribution is taken out as it was and put back as
-- it is. IssueStore.CountOpen and IssueStore.List answer from it (see there
-- for confidential issues).
CREATE TABLE IF NOT EXISTS issue_counts (
    project_id BIGINT PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    all_count BIGINT NOT NULL DEFAULT 0,
    all_confidential_count BIGINT NOT NULL DEFAULT 0,
    open_count BIGINT NOT NULL DEFAULT 0,
    open_confidential_count BIGINT NOT NULL DEFAULT 0
);
--bun:split
INSERT INTO issue_counts (project_id, all_count, all_confidential_count, open_count, open_confidential_count)
SELECT project_id, count(*),
    sum(CASE WHEN confidential THEN 1 ELSE 0 END),
    sum(CASE WHEN state IN ('opened', 'reopened') THEN 1 ELSE 0 END),
    sum(CASE WHEN confidential AND state IN ('opened', 'reopened') THEN 1 ELSE 0 END)
FROM issues GROUP BY project_id
ON CONFLICT (project_id) DO NOTHING;
{{if .Postgres}}
--bun:split
CREATE OR REPLACE FUNCTION issues_count() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.state = NEW.state AND OLD.confidential = NEW.confidential
        AND OLD.project_id = NEW.project_id THEN
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE issue_counts SET all_count = all_count - 1,
            all_confidential_count = all_confidential_count - (CASE WHEN OLD.confidential THEN 1 ELSE 0 END),
            open_count = open_count - (CASE WHEN OLD.state IN ('opened', 'reopened') THEN 1 ELSE 0 END),
            open_confidential_count = open_confidential_count
                - (CASE WHEN OLD.confidential AND OLD.state IN ('opened', 'reopened') THEN 1 ELSE 0 END)
        WHERE project_id = OLD.project_id;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        INSERT INTO issue_counts (project_id, all_count, all_confidential_count, open_count, open_confidential_count)
        VALUES (NEW.project_id, 1,
            CASE WHEN NEW.confidential THEN 1 ELSE 0 END,
            CASE WHEN NEW.state IN ('opened', 'reopened') THEN 1 ELSE 0 END,
            CASE WHEN NEW.confidential AND NEW.state IN ('opened', 'reopened') THEN 1 ELSE 0 END)
        ON CONFLICT (project_id) DO UPDATE SET all_count = issue_counts.all_count + 1,
            all_confidential_count = issue_counts.all_confidential_count + excluded.all_confidential_count,
            open_count = issue_counts.open_count + excluded.open_count,
            open_confidential_count = issue_counts.open_confidential_count + excluded.open_confidential_count;
    END IF;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
--bun:split
DROP TRIGGER IF EXISTS issues_count ON issues;
--bun:split
CREATE TRIGGER issues_count AFTER INSERT OR DELETE OR UPDATE OF state, confidential, project_id
ON issues FOR EACH ROW EXECUTE FUNCTION issues_count();
{{else}}
--bun:split
CREATE TRIGGER IF NOT EXISTS issues_count_insert AFTER INSERT ON issues
BEGIN
    INSERT INTO issue_counts (project_id, all_count, all_confidential_count, open_count, open_confidential_count)
    VALUES (NEW.project_id, 1,
        CASE WHEN NEW.confidential THEN 1 ELSE 0 END,
        CASE WHEN NEW.state IN ('opened', 'reopened') THEN 1 ELSE 0 END,
        CASE WHEN NEW.confidential AND NEW.state IN ('opened', 'reopened') THEN 1 ELSE 0 END)
    ON CONFLICT (project_id) DO UPDATE SET all_count = all_count + 1,
        all_confidential_count = all_confidential_count + excluded.all_confidential_count,
        open_count = open_count + excluded.open_count,
        open_confidential_count = open_confidential_count + excluded.open_confidential_count;
END;
--bun:split
CREATE TRIGGER IF NOT EXISTS issues_count_delete AFTER DELETE ON issues
BEGIN
    UPDATE issue_counts SET all_count = all_count - 1,
        all_confidential_count = all_confidential_count - (CASE WHEN OLD.confidential THEN 1 ELSE 0 END),
        open_count = open_count - (CASE WHEN OLD.state IN ('opened', 'reopened') THEN 1 ELSE 0 END),
        open_confidential_count = open_confidential_count
            - (CASE WHEN OLD.confidential AND OLD.state IN ('opened', 'reopened') THEN 1 ELSE 0 END)
    WHERE project_id = OLD.project_id;
END;
--bun:split
CREATE TRIGGER IF NOT EXISTS issues_count_update AFTER UPDATE OF state, confidential, project_id ON issues
WHEN OLD.state IS NOT NEW.state OR OLD.confidential IS NOT NEW.confidential OR OLD.project_id IS NOT NEW.project_id
BEGIN
    UPDATE issue_counts SET all_count = all_count - 1,
        all_confidential_count = all_confidential_count - (CASE WHEN OLD.confidential THEN 1 ELSE 0 END),
        open_count = open_count - (CASE WHEN OLD.state IN ('opened', 'reopened') THEN 1 ELSE 0 END),
        open_confidential_count = open_confidential_count
            - (CASE WHEN OLD.confidential AND OLD.state IN ('opened', 'reopened') THEN 1 ELSE 0 END)
    WHERE project_id = OLD.project_id;
    INSERT INTO issue_counts (project_id, all_count, all_confidential_count, open_count, open_confidential_count)
    VALUES (NEW.project_id, 1,
        CASE WHEN NEW.confidential THEN 1 ELSE 0 END,
        CASE WHEN NEW.state IN ('opened', 'reopened') THEN 1 ELSE 0 END,
        CASE WHEN NEW.confidential AND NEW.state IN ('opened', 'reopened') THEN 1 ELSE 0 END)
    ON CONFLICT (project_id) DO UPDATE SET all_count = all_count + 1,
        all_confidential_count = all_confidential_count + excluded.all_confidential_count,
        open_count = open_count + excluded.open_count,
        open_confidential_count = open_confidential_count + excluded.open_confidential_count;
END;
{{end}}
