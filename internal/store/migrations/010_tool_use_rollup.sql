-- mcpcost usage store: the tool calls summed per server and tool.
--
-- What the reports by server and by tool read, per quarter hour (by the
-- call's time, else the result's, as tool_rollup), session, project (as
-- the calls name it: '' for their session's), server, tool and plugin:
-- the tool as the reports name it (the server's own name, else the
-- agent's; '(unknown tool)' for a result whose call was not read). Kept
-- like the rollups of migration 006, by triggers in the transaction that
-- changes the rows, idle while meta holds 'rollups_deferred', and filled
-- in from the rows when the store is next opened (see rollups.go). The
-- copies of a call that another session's copy stands for (lost) are
-- left out, as are rows with neither time.
--
-- A largest result taken out is looked for again among the rows of its
-- session that the rollup sums, which the key (source, session_id,
-- call_id) finds. The calls' durations, and the repeats of their
-- arguments, are not summed: a percentile and a first sight within a
-- period are not sums.
CREATE TABLE tool_use_rollup (
	bucket           INTEGER NOT NULL,
	source           TEXT NOT NULL,
	session_id       TEXT NOT NULL,
	project          TEXT NOT NULL,
	server           TEXT NOT NULL,  -- '' for a built-in tool
	tool             TEXT NOT NULL,
	plugin           TEXT NOT NULL,
	calls            INTEGER NOT NULL,
	errors           INTEGER NOT NULL,
	unanswered       INTEGER NOT NULL, -- calls whose result was not read
	result_tokens    INTEGER NOT NULL,
	max_result       INTEGER NOT NULL, -- the largest result_tokens
	estimated_tokens INTEGER NOT NULL,
	non_text         INTEGER NOT NULL,
	PRIMARY KEY (bucket, source, session_id, project, server, tool, plugin)
);

CREATE TRIGGER tool_use_rollup_add AFTER INSERT ON tool_calls
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'rollups_deferred') AND coalesce(NEW.call_ts, NEW.result_ts) IS NOT NULL AND NEW.lost = 0
BEGIN
	INSERT INTO tool_use_rollup VALUES (
		coalesce(NEW.call_ts, NEW.result_ts) - ((coalesce(NEW.call_ts, NEW.result_ts) % 900000) + 900000) % 900000,
		NEW.source, NEW.session_id, coalesce(NEW.project, ''), coalesce(NEW.server, ''),
		CASE WHEN NEW.call_ts IS NULL THEN '(unknown tool)' WHEN coalesce(NEW.tool, '') <> '' THEN NEW.tool ELSE coalesce(NEW.name, '') END, coalesce(NEW.plugin, ''),
		1, coalesce(NEW.is_error, 0) <> 0, NEW.result_ts IS NULL, coalesce(NEW.result_tokens, 0), coalesce(NEW.result_tokens, 0),
		coalesce(NEW.estimated_tokens, 0), coalesce(NEW.non_text, 0))
	ON CONFLICT (bucket, source, session_id, project, server, tool, plugin) DO UPDATE SET
		calls = calls + 1, errors = errors + excluded.errors, unanswered = unanswered + excluded.unanswered,
		result_tokens = result_tokens + excluded.result_tokens, max_result = max(max_result, excluded.max_result),
		estimated_tokens = estimated_tokens + excluded.estimated_tokens, non_text = non_text + excluded.non_text;
END;

CREATE TRIGGER tool_use_rollup_remove AFTER DELETE ON tool_calls
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'rollups_deferred') AND coalesce(OLD.call_ts, OLD.result_ts) IS NOT NULL AND OLD.lost = 0
BEGIN
	UPDATE tool_use_rollup SET calls = calls - 1, errors = errors - (coalesce(OLD.is_error, 0) <> 0),
		unanswered = unanswered - (OLD.result_ts IS NULL), result_tokens = result_tokens - coalesce(OLD.result_tokens, 0),
		estimated_tokens = estimated_tokens - coalesce(OLD.estimated_tokens, 0), non_text = non_text - coalesce(OLD.non_text, 0),
		max_result = CASE WHEN max_result > coalesce(OLD.result_tokens, 0) THEN max_result ELSE coalesce((
			SELECT max(coalesce(t.result_tokens, 0)) FROM tool_calls t
			WHERE t.source = OLD.source AND t.session_id = OLD.session_id AND t.lost = 0
				AND coalesce(t.call_ts, t.result_ts) IS NOT NULL AND coalesce(t.call_ts, t.result_ts) - ((coalesce(t.call_ts, t.result_ts) % 900000) + 900000) % 900000 = tool_use_rollup.bucket
				AND coalesce(t.project, '') = tool_use_rollup.project AND coalesce(t.server, '') = tool_use_rollup.server
				AND CASE WHEN t.call_ts IS NULL THEN '(unknown tool)' WHEN coalesce(t.tool, '') <> '' THEN t.tool ELSE coalesce(t.name, '') END = tool_use_rollup.tool AND coalesce(t.plugin, '') = tool_use_rollup.plugin), 0) END
	WHERE bucket = coalesce(OLD.call_ts, OLD.result_ts) - ((coalesce(OLD.call_ts, OLD.result_ts) % 900000) + 900000) % 900000 AND source = OLD.source AND session_id = OLD.session_id
		AND project = coalesce(OLD.project, '') AND server = coalesce(OLD.server, '')
		AND tool = CASE WHEN OLD.call_ts IS NULL THEN '(unknown tool)' WHEN coalesce(OLD.tool, '') <> '' THEN OLD.tool ELSE coalesce(OLD.name, '') END AND plugin = coalesce(OLD.plugin, '');
	DELETE FROM tool_use_rollup
	WHERE bucket = coalesce(OLD.call_ts, OLD.result_ts) - ((coalesce(OLD.call_ts, OLD.result_ts) % 900000) + 900000) % 900000 AND source = OLD.source AND session_id = OLD.session_id AND calls = 0;
END;

-- An update is the old row taken out and the new one put in.
CREATE TRIGGER tool_use_rollup_update_remove AFTER UPDATE ON tool_calls
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'rollups_deferred') AND coalesce(OLD.call_ts, OLD.result_ts) IS NOT NULL AND OLD.lost = 0
BEGIN
	UPDATE tool_use_rollup SET calls = calls - 1, errors = errors - (coalesce(OLD.is_error, 0) <> 0),
		unanswered = unanswered - (OLD.result_ts IS NULL), result_tokens = result_tokens - coalesce(OLD.result_tokens, 0),
		estimated_tokens = estimated_tokens - coalesce(OLD.estimated_tokens, 0), non_text = non_text - coalesce(OLD.non_text, 0),
		max_result = CASE WHEN max_result > coalesce(OLD.result_tokens, 0) THEN max_result ELSE coalesce((
			SELECT max(coalesce(t.result_tokens, 0)) FROM tool_calls t
			WHERE t.source = OLD.source AND t.session_id = OLD.session_id AND t.lost = 0
				AND coalesce(t.call_ts, t.result_ts) IS NOT NULL AND coalesce(t.call_ts, t.result_ts) - ((coalesce(t.call_ts, t.result_ts) % 900000) + 900000) % 900000 = tool_use_rollup.bucket
				AND coalesce(t.project, '') = tool_use_rollup.project AND coalesce(t.server, '') = tool_use_rollup.server
				AND CASE WHEN t.call_ts IS NULL THEN '(unknown tool)' WHEN coalesce(t.tool, '') <> '' THEN t.tool ELSE coalesce(t.name, '') END = tool_use_rollup.tool AND coalesce(t.plugin, '') = tool_use_rollup.plugin), 0) END
	WHERE bucket = coalesce(OLD.call_ts, OLD.result_ts) - ((coalesce(OLD.call_ts, OLD.result_ts) % 900000) + 900000) % 900000 AND source = OLD.source AND session_id = OLD.session_id
		AND project = coalesce(OLD.project, '') AND server = coalesce(OLD.server, '')
		AND tool = CASE WHEN OLD.call_ts IS NULL THEN '(unknown tool)' WHEN coalesce(OLD.tool, '') <> '' THEN OLD.tool ELSE coalesce(OLD.name, '') END AND plugin = coalesce(OLD.plugin, '');
	DELETE FROM tool_use_rollup
	WHERE bucket = coalesce(OLD.call_ts, OLD.result_ts) - ((coalesce(OLD.call_ts, OLD.result_ts) % 900000) + 900000) % 900000 AND source = OLD.source AND session_id = OLD.session_id AND calls = 0;
END;

CREATE TRIGGER tool_use_rollup_update_add AFTER UPDATE ON tool_calls
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'rollups_deferred') AND coalesce(NEW.call_ts, NEW.result_ts) IS NOT NULL AND NEW.lost = 0
BEGIN
	INSERT INTO tool_use_rollup VALUES (
		coalesce(NEW.call_ts, NEW.result_ts) - ((coalesce(NEW.call_ts, NEW.result_ts) % 900000) + 900000) % 900000,
		NEW.source, NEW.session_id, coalesce(NEW.project, ''), coalesce(NEW.server, ''),
		CASE WHEN NEW.call_ts IS NULL THEN '(unknown tool)' WHEN coalesce(NEW.tool, '') <> '' THEN NEW.tool ELSE coalesce(NEW.name, '') END, coalesce(NEW.plugin, ''),
		1, coalesce(NEW.is_error, 0) <> 0, NEW.result_ts IS NULL, coalesce(NEW.result_tokens, 0), coalesce(NEW.result_tokens, 0),
		coalesce(NEW.estimated_tokens, 0), coalesce(NEW.non_text, 0))
	ON CONFLICT (bucket, source, session_id, project, server, tool, plugin) DO UPDATE SET
		calls = calls + 1, errors = errors + excluded.errors, unanswered = unanswered + excluded.unanswered,
		result_tokens = result_tokens + excluded.result_tokens, max_result = max(max_result, excluded.max_result),
		estimated_tokens = estimated_tokens + excluded.estimated_tokens, non_text = non_text + excluded.non_text;
END;

INSERT OR IGNORE INTO meta (key, value) VALUES ('rollups_deferred', x'01');
