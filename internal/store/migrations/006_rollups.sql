-- mcpcost usage store: rollups.
--
-- The sums the reports by day, session, model and project read, per
-- quarter hour (bucket: the quarter hour's start, Unix milliseconds), so
-- that a report reads a row per quarter hour a session was active in
-- rather than a row per request or tool call. Triggers keep them equal to
-- the sums of the rows they roll up, in the transaction that changes
-- those rows; while meta holds 'rollups_deferred' they do nothing, and
-- the rollups are filled in from the rows in one go (see rollups.go). A
-- quarter hour, not a day: a report buckets days in any time zone (every
-- offset in use is a whole number of quarter hours).

-- Requests, by what a report groups or prices them by. Requests with a
-- negative count (stored by an older mcpcost) are left out, as the
-- reports leave them out.
CREATE TABLE request_rollup (
	bucket         INTEGER NOT NULL,
	source         TEXT NOT NULL,
	session_id     TEXT NOT NULL,
	agent_file     TEXT NOT NULL,   -- the older-style sub-agent file's agent id; '' for any other file
	model          TEXT NOT NULL,
	project        TEXT NOT NULL,   -- as the requests name it ('' for their session's)
	speed          TEXT NOT NULL,
	recorded       INTEGER NOT NULL, -- 1: the requests recorded their cost (cost_usd)
	band           INTEGER NOT NULL, -- input, cache writes and reads: 0 up to 200000, 1 up to 272000, 2 above
	requests       INTEGER NOT NULL,
	nonzero        INTEGER NOT NULL, -- requests with a token total above 0
	input          INTEGER NOT NULL,
	output         INTEGER NOT NULL,
	cache_write_5m INTEGER NOT NULL,
	cache_write_1h INTEGER NOT NULL,
	cache_read     INTEGER NOT NULL,
	reasoning      INTEGER NOT NULL,
	cost_usd       REAL NOT NULL,    -- the recorded costs' sum
	PRIMARY KEY (bucket, source, session_id, agent_file, model, project, speed, recorded, band)
);

-- Tool calls, by the time a report places them at (the call's, else the
-- result's). A row that has neither (for a moment, while a file's rows
-- are cleared) is left out.
CREATE TABLE tool_rollup (
	bucket        INTEGER NOT NULL,
	source        TEXT NOT NULL,
	session_id    TEXT NOT NULL,
	agent_file    TEXT NOT NULL,
	project       TEXT NOT NULL,
	mcp           INTEGER NOT NULL,  -- 1: calls of an MCP server's tools
	calls         INTEGER NOT NULL,
	errors        INTEGER NOT NULL,
	result_tokens INTEGER NOT NULL,
	PRIMARY KEY (bucket, source, session_id, agent_file, project, mcp)
);

CREATE TRIGGER request_rollup_add AFTER INSERT ON requests
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'rollups_deferred') AND NEW.input >= 0 AND NEW.output >= 0 AND NEW.cache_write_5m >= 0 AND NEW.cache_write_1h >= 0 AND NEW.cache_read >= 0
BEGIN
	INSERT INTO request_rollup VALUES (
		NEW.ts - ((NEW.ts % 900000) + 900000) % 900000, NEW.source, NEW.session_id,
		coalesce((SELECT f.agent_id FROM files f WHERE f.id = NEW.file_id AND f.session_id = '' AND f.agent_id <> ''), ''),
		NEW.model, NEW.project, NEW.speed, NEW.cost_usd IS NOT NULL,
		CASE WHEN NEW.input + NEW.cache_write_5m + NEW.cache_write_1h + NEW.cache_read > 272000 THEN 2
			WHEN NEW.input + NEW.cache_write_5m + NEW.cache_write_1h + NEW.cache_read > 200000 THEN 1 ELSE 0 END,
		1, NEW.input + NEW.output + NEW.cache_write_5m + NEW.cache_write_1h + NEW.cache_read > 0,
		NEW.input, NEW.output, NEW.cache_write_5m, NEW.cache_write_1h, NEW.cache_read, NEW.reasoning, coalesce(NEW.cost_usd, 0))
	ON CONFLICT (bucket, source, session_id, agent_file, model, project, speed, recorded, band) DO UPDATE SET
		requests = requests + 1, nonzero = nonzero + excluded.nonzero,
		input = input + excluded.input, output = output + excluded.output,
		cache_write_5m = cache_write_5m + excluded.cache_write_5m, cache_write_1h = cache_write_1h + excluded.cache_write_1h,
		cache_read = cache_read + excluded.cache_read, reasoning = reasoning + excluded.reasoning,
		cost_usd = cost_usd + excluded.cost_usd;
END;

CREATE TRIGGER request_rollup_remove AFTER DELETE ON requests
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'rollups_deferred') AND OLD.input >= 0 AND OLD.output >= 0 AND OLD.cache_write_5m >= 0 AND OLD.cache_write_1h >= 0 AND OLD.cache_read >= 0
BEGIN
	UPDATE request_rollup SET
		requests = requests - 1, nonzero = nonzero - (OLD.input + OLD.output + OLD.cache_write_5m + OLD.cache_write_1h + OLD.cache_read > 0),
		input = input - OLD.input, output = output - OLD.output,
		cache_write_5m = cache_write_5m - OLD.cache_write_5m, cache_write_1h = cache_write_1h - OLD.cache_write_1h,
		cache_read = cache_read - OLD.cache_read, reasoning = reasoning - OLD.reasoning,
		cost_usd = cost_usd - coalesce(OLD.cost_usd, 0)
	WHERE bucket = OLD.ts - ((OLD.ts % 900000) + 900000) % 900000 AND source = OLD.source AND session_id = OLD.session_id
		AND agent_file = coalesce((SELECT f.agent_id FROM files f WHERE f.id = OLD.file_id AND f.session_id = '' AND f.agent_id <> ''), '')
		AND model = OLD.model AND project = OLD.project AND speed = OLD.speed AND recorded = (OLD.cost_usd IS NOT NULL)
		AND band = CASE WHEN OLD.input + OLD.cache_write_5m + OLD.cache_write_1h + OLD.cache_read > 272000 THEN 2
			WHEN OLD.input + OLD.cache_write_5m + OLD.cache_write_1h + OLD.cache_read > 200000 THEN 1 ELSE 0 END;
	DELETE FROM request_rollup
	WHERE bucket = OLD.ts - ((OLD.ts % 900000) + 900000) % 900000 AND source = OLD.source AND session_id = OLD.session_id AND requests = 0;
END;

-- An update is the old row taken out and the new one put in.
CREATE TRIGGER request_rollup_update_remove AFTER UPDATE ON requests
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'rollups_deferred') AND OLD.input >= 0 AND OLD.output >= 0 AND OLD.cache_write_5m >= 0 AND OLD.cache_write_1h >= 0 AND OLD.cache_read >= 0
BEGIN
	UPDATE request_rollup SET
		requests = requests - 1, nonzero = nonzero - (OLD.input + OLD.output + OLD.cache_write_5m + OLD.cache_write_1h + OLD.cache_read > 0),
		input = input - OLD.input, output = output - OLD.output,
		cache_write_5m = cache_write_5m - OLD.cache_write_5m, cache_write_1h = cache_write_1h - OLD.cache_write_1h,
		cache_read = cache_read - OLD.cache_read, reasoning = reasoning - OLD.reasoning,
		cost_usd = cost_usd - coalesce(OLD.cost_usd, 0)
	WHERE bucket = OLD.ts - ((OLD.ts % 900000) + 900000) % 900000 AND source = OLD.source AND session_id = OLD.session_id
		AND agent_file = coalesce((SELECT f.agent_id FROM files f WHERE f.id = OLD.file_id AND f.session_id = '' AND f.agent_id <> ''), '')
		AND model = OLD.model AND project = OLD.project AND speed = OLD.speed AND recorded = (OLD.cost_usd IS NOT NULL)
		AND band = CASE WHEN OLD.input + OLD.cache_write_5m + OLD.cache_write_1h + OLD.cache_read > 272000 THEN 2
			WHEN OLD.input + OLD.cache_write_5m + OLD.cache_write_1h + OLD.cache_read > 200000 THEN 1 ELSE 0 END;
	DELETE FROM request_rollup
	WHERE bucket = OLD.ts - ((OLD.ts % 900000) + 900000) % 900000 AND source = OLD.source AND session_id = OLD.session_id AND requests = 0;
END;

CREATE TRIGGER request_rollup_update_add AFTER UPDATE ON requests
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'rollups_deferred') AND NEW.input >= 0 AND NEW.output >= 0 AND NEW.cache_write_5m >= 0 AND NEW.cache_write_1h >= 0 AND NEW.cache_read >= 0
BEGIN
	INSERT INTO request_rollup VALUES (
		NEW.ts - ((NEW.ts % 900000) + 900000) % 900000, NEW.source, NEW.session_id,
		coalesce((SELECT f.agent_id FROM files f WHERE f.id = NEW.file_id AND f.session_id = '' AND f.agent_id <> ''), ''),
		NEW.model, NEW.project, NEW.speed, NEW.cost_usd IS NOT NULL,
		CASE WHEN NEW.input + NEW.cache_write_5m + NEW.cache_write_1h + NEW.cache_read > 272000 THEN 2
			WHEN NEW.input + NEW.cache_write_5m + NEW.cache_write_1h + NEW.cache_read > 200000 THEN 1 ELSE 0 END,
		1, NEW.input + NEW.output + NEW.cache_write_5m + NEW.cache_write_1h + NEW.cache_read > 0,
		NEW.input, NEW.output, NEW.cache_write_5m, NEW.cache_write_1h, NEW.cache_read, NEW.reasoning, coalesce(NEW.cost_usd, 0))
	ON CONFLICT (bucket, source, session_id, agent_file, model, project, speed, recorded, band) DO UPDATE SET
		requests = requests + 1, nonzero = nonzero + excluded.nonzero,
		input = input + excluded.input, output = output + excluded.output,
		cache_write_5m = cache_write_5m + excluded.cache_write_5m, cache_write_1h = cache_write_1h + excluded.cache_write_1h,
		cache_read = cache_read + excluded.cache_read, reasoning = reasoning + excluded.reasoning,
		cost_usd = cost_usd + excluded.cost_usd;
END;

CREATE TRIGGER tool_rollup_add AFTER INSERT ON tool_calls
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'rollups_deferred') AND coalesce(NEW.call_ts, NEW.result_ts) IS NOT NULL
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
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'rollups_deferred') AND coalesce(OLD.call_ts, OLD.result_ts) IS NOT NULL
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
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'rollups_deferred') AND coalesce(OLD.call_ts, OLD.result_ts) IS NOT NULL
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
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'rollups_deferred') AND coalesce(NEW.call_ts, NEW.result_ts) IS NOT NULL
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

-- The rows the store holds are added by the store when it is next
-- opened (see rollups.go), as after a first ingest, which leaves the
-- triggers idle while this key is set.
INSERT OR IGNORE INTO meta (key, value) VALUES ('rollups_deferred', x'01');
