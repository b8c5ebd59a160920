-- Events about confidential issues, and notes on them, show only to
-- readers who may see the issue (EventFilter.Viewer).
ALTER TABLE events ADD COLUMN confidential BOOLEAN NOT NULL DEFAULT FALSE;
