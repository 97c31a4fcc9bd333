-- mcpcost usage store: the tool call rollups leave out the copies of a
-- call that another session's copy stands for (tool_calls.lost, see
-- migration 005), as the queries of the rows do. The triggers are made
-- again with that condition, and the rollups are filled in again from
-- the rows when the store is next opened (see rollups.go).
DROP TRIGGER tool_rollup_add;
DROP TRIGGER tool_rollup_remove;
DROP TRIGGER tool_rollup_update_remove;
DROP TRIGGER tool_rollup_update_add;

CREATE TRIGGER tool_rollup_add AFTER INSERT ON tool_calls
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'rollups_deferred') AND coalesce(NEW.call_ts, NEW.result_ts) IS NOT NULL AND NEW.lost = 0
BEGIN
	INSERT INTO tool_rollup VALUES (
		coalesce(NEW.call_ts, NEW.result_ts) - ((coalesce(NEW.call_ts, NEW.result_ts) % 900000) + 900000) % 900000,
		NEW.source, NEW.session_id,
		coalesce((SELECT f.agent_id FROM files f WHERE f.id = coalesce(NEW.call_file_id, NEW.result_file_id) AND f.session_id = '' AND f.agent_id <> ''), ''),
		coalesce(NEW.project, ''), coalesce(NEW.server, '') <> '',
		1, coalesce(NEW.is_error, 0) <> 0, coalesce(NEW.result_tokens, 0))
	ON CONFLICT (bucket, source, session_id, agent_file, project, mcp) DO UPDATE SET
		calls = calls + 1, errors = errors + excluded.errors, result_tokens = result_tokens + excluded.result_tokens;
END;

CREATE TRIGGER tool_rollup_remove AFTER DELETE ON tool_calls
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'rollups_deferred') AND coalesce(OLD.call_ts, OLD.result_ts) IS NOT NULL AND OLD.lost = 0
BEGIN
	UPDATE tool_rollup SET calls = calls - 1, errors = errors - (coalesce(OLD.is_error, 0) <> 0),
		result_tokens = result_tokens - coalesce(OLD.result_tokens, 0)
	WHERE bucket = coalesce(OLD.call_ts, OLD.result_ts) - ((coalesce(OLD.call_ts, OLD.result_ts) % 900000) + 900000) % 900000
		AND source = OLD.source AND session_id = OLD.session_id
		AND agent_file = coalesce((SELECT f.agent_id FROM files f WHERE f.id = coalesce(OLD.call_file_id, OLD.result_file_id) AND f.session_id = '' AND f.agent_id <> ''), '')
		AND project = coalesce(OLD.project, '') AND mcp = (coalesce(OLD.server, '') <> '');
	DELETE FROM tool_rollup
	WHERE bucket = coalesce(OLD.call_ts, OLD.result_ts) - ((coalesce(OLD.call_ts, OLD.result_ts) % 900000) + 900000) % 900000
		AND source = OLD.source AND session_id = OLD.session_id AND calls = 0;
END;

CREATE TRIGGER tool_rollup_update_remove AFTER UPDATE ON tool_calls
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'rollups_deferred') AND coalesce(OLD.call_ts, OLD.result_ts) IS NOT NULL AND OLD.lost = 0
BEGIN
	UPDATE tool_rollup SET calls = calls - 1, errors = errors - (coalesce(OLD.is_error, 0) <> 0),
		result_tokens = result_tokens - coalesce(OLD.result_tokens, 0)
	WHERE bucket = coalesce(OLD.call_ts, OLD.result_ts) - ((coalesce(OLD.call_ts, OLD.result_ts) % 900000) + 900000) % 900000
		AND source = OLD.source AND session_id = OLD.session_id
		AND agent_file = coalesce((SELECT f.agent_id FROM files f WHERE f.id = coalesce(OLD.call_file_id, OLD.result_file_id) AND f.session_id = '' AND f.agent_id <> ''), '')
		AND project = coalesce(OLD.project, '') AND mcp = (coalesce(OLD.server, '') <> '');
	DELETE FROM tool_rollup
	WHERE bucket = coalesce(OLD.call_ts, OLD.result_ts) - ((coalesce(OLD.call_ts, OLD.result_ts) % 900000) + 900000) % 900000
		AND source = OLD.source AND session_id = OLD.session_id AND calls = 0;
END;

CREATE TRIGGER tool_rollup_update_add AFTER UPDATE ON tool_calls
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'rollups_deferred') AND coalesce(NEW.call_ts, NEW.result_ts) IS NOT NULL AND NEW.lost = 0
BEGIN
	INSERT INTO tool_rollup VALUES (
		coalesce(NEW.call_ts, NEW.result_ts) - ((coalesce(NEW.call_ts, NEW.result_ts) % 900000) + 900000) % 900000,
		NEW.source, NEW.session_id,
		coalesce((SELECT f.agent_id FROM files f WHERE f.id = coalesce(NEW.call_file_id, NEW.result_file_id) AND f.session_id = '' AND f.agent_id <> ''), ''),
		coalesce(NEW.project, ''), coalesce(NEW.server, '') <> '',
		1, coalesce(NEW.is_error, 0) <> 0, coalesce(NEW.result_tokens, 0))
	ON CONFLICT (bucket, source, session_id, agent_file, project, mcp) DO UPDATE SET
		calls = calls + 1, errors = errors + excluded.errors, result_tokens = result_tokens + excluded.result_tokens;
END;

INSERT OR IGNORE INTO meta (key, value) VALUES ('rollups_deferred', x'01');
