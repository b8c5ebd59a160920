-- Protected branches keep GitLab's access levels for pushing and merging
-- (0 no one, 30 developers and masters, 40 masters) in place of the two
-- developers_can_* flags, which could not say "no one". Existing rules keep
-- their meaning: a flag set is 30, unset 40.
ALTER TABLE protected_branches ADD COLUMN push_access_level INTEGER NOT NULL DEFAULT 40;
--bun:split
ALTER TABLE protected_branches ADD COLUMN merge_access_level INTEGER NOT NULL DEFAULT 40;
--bun:split
UPDATE protected_branches SET
    push_access_level = CASE WHEN developers_can_push THEN 30 ELSE 40 END,
    merge_access_level = CASE WHEN developers_can_merge THEN 30 ELSE 40 END;
--bun:split
ALTER TABLE protected_branches DROP COLUMN developers_can_push;
--bun:split
ALTER TABLE protected_branches DROP COLUMN developers_can_merge;
