-- mcpcost usage store, version 5.

-- Lines that Claude Code copied into a resumed session (they name the
-- session they were copied from): copied is 1 on a request whose kept
-- copy is such a line, and on a compaction read from one. A session's
-- own span (sessions.first_ts and last_ts) leaves them out; the copies it
-- won are added where it is read.
ALTER TABLE requests ADD COLUMN copied INTEGER NOT NULL DEFAULT 0;
ALTER TABLE compactions ADD COLUMN copied INTEGER NOT NULL DEFAULT 0;

-- A tool call copied into a resumed session is one call, in the session
-- whose copy of its request is kept. Each session's copy keeps its row;
-- lost is 1 on the copies that are not counted. The call line's request
-- identifies the copies: its message id, request id, and without a
-- request id the session the line names (dedup_session) and the call's
-- time, as for requests. copied is a bit set: 1 when the call's line was
-- copied, 2 when the result's was; origin is the session a copied call
-- line names.
ALTER TABLE tool_calls ADD COLUMN message_id TEXT;
ALTER TABLE tool_calls ADD COLUMN request_id TEXT;
ALTER TABLE tool_calls ADD COLUMN dedup_session TEXT;
ALTER TABLE tool_calls ADD COLUMN origin TEXT;
ALTER TABLE tool_calls ADD COLUMN copied INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tool_calls ADD COLUMN lost INTEGER NOT NULL DEFAULT 0;
CREATE INDEX tool_calls_copied ON tool_calls (source, call_id) WHERE copied <> 0;
CREATE INDEX tool_calls_copied_message ON tool_calls (source, message_id) WHERE copied <> 0;
CREATE INDEX requests_copied ON requests (source, session_id) WHERE copied <> 0;

-- Rows stored before: a call stored in several sessions with the same
-- time, name and arguments is one call, kept where its request would be
-- (outside a sidechain; then the copy with its result, as a copy made
-- while the call ran has none; then the first file in path order, then
-- the first line); a result whose call is in another session, at the
-- same time, is that call's. The files still on disk are read again (their
-- readers' version is older), which fills in the columns above.
CREATE INDEX tool_calls_migrate ON tool_calls (source, call_id);
UPDATE tool_calls SET lost = 1 WHERE call_file_id IS NOT NULL AND EXISTS (
	SELECT 1 FROM tool_calls o JOIN files fo ON fo.id = o.call_file_id, files f
	WHERE f.id = tool_calls.call_file_id AND o.source = tool_calls.source AND o.call_id = tool_calls.call_id
		AND o.session_id <> tool_calls.session_id AND o.call_ts IS tool_calls.call_ts
		AND o.name IS tool_calls.name AND o.args_hash IS tool_calls.args_hash
		AND (coalesce(o.sidechain, 0), o.result_ts IS NULL, fo.path, o.call_line)
			< (coalesce(tool_calls.sidechain, 0), tool_calls.result_ts IS NULL, f.path, tool_calls.call_line));
UPDATE tool_calls SET lost = 1 WHERE call_file_id IS NULL AND EXISTS (
	SELECT 1 FROM tool_calls o WHERE o.source = tool_calls.source AND o.call_id = tool_calls.call_id
		AND o.session_id <> tool_calls.session_id AND o.call_file_id IS NOT NULL AND o.result_ts IS tool_calls.result_ts);
DROP INDEX tool_calls_migrate;
