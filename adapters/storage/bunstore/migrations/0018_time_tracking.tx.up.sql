-- Time tracking (GitLab's time_estimate and the sum of its timelogs), in
-- seconds, kept on the item's own row: reads cost nothing more, a delete
-- takes them along, and each change is one UPDATE that adds in SQL.
ALTER TABLE issues ADD COLUMN time_estimate BIGINT NOT NULL DEFAULT 0;
ALTER TABLE issues ADD COLUMN total_time_spent BIGINT NOT NULL DEFAULT 0;
ALTER TABLE merge_requests ADD COLUMN time_estimate BIGINT NOT NULL DEFAULT 0;
ALTER TABLE merge_requests ADD COLUMN total_time_spent BIGINT NOT NULL DEFAULT 0;
