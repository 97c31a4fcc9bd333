-- mcpcost usage store, version 3.

-- A request recorded with a message id and no request id (LLM gateways
-- and proxies) is one request per (message id, the line's own sessionId,
-- timestamp), as ccusage counts it: dedup_session is that sessionId
-- (empty for every other request).
ALTER TABLE requests ADD COLUMN dedup_session TEXT NOT NULL DEFAULT '';

-- The tool's own run time as the transcript records it (Codex's
-- duration_seconds, "Wall time"), in milliseconds; NULL when not recorded.
ALTER TABLE tool_calls ADD COLUMN duration_ms INTEGER;

-- The version of the readers a file was read with: a file read by older
-- readers is read again from the top (when it still exists), so that what
-- they missed or miscounted is corrected.
ALTER TABLE files ADD COLUMN reader INTEGER NOT NULL DEFAULT 0;
