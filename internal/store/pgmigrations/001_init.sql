-- mcpcost shared usage store (PostgreSQL), version 1.
--
-- What machines push from their local stores: the same rows, without the
-- local files' names, offsets or line numbers. Times are Unix
-- milliseconds (UTC). Every row is keyed by its identity (key, a SHA-256
-- the pushing mcpcost computes), so that a request, tool call, session or
-- compaction held by two machines is one row; held says which machines
-- hold which rows, so that a row no machine holds any longer goes.

-- The machines that pushed: their name, the OS user who pushed last, and
-- when (Unix milliseconds).
CREATE TABLE machines (
	machine   TEXT PRIMARY KEY,
	os_user   TEXT NOT NULL,
	pushed_at BIGINT NOT NULL
);

-- Which machine holds which row: tbl is 1 requests, 2 tool_calls, 3
-- sessions, 4 compactions.
CREATE TABLE held (
	machine TEXT NOT NULL,
	tbl     SMALLINT NOT NULL,
	key     BYTEA NOT NULL,
	PRIMARY KEY (machine, tbl, key)
);
CREATE INDEX held_key ON held (tbl, key);

-- machine and os_user: the first machine (and its user) that pushed the row.
CREATE TABLE requests (
	key            BYTEA PRIMARY KEY,
	machine        TEXT NOT NULL,
	os_user        TEXT NOT NULL,
	source         TEXT NOT NULL,
	session_id     TEXT NOT NULL,
	agent_id       TEXT NOT NULL,
	agent_file     TEXT NOT NULL,   -- the older-style sub-agent file's agent id; '' for any other file
	sidechain      BIGINT NOT NULL,
	ts             BIGINT NOT NULL,
	model          TEXT NOT NULL,
	project        TEXT NOT NULL,
	message_id     TEXT NOT NULL,
	request_id     TEXT NOT NULL,
	dedup_session  TEXT NOT NULL,
	input          BIGINT NOT NULL,
	output         BIGINT NOT NULL,
	cache_write_5m BIGINT NOT NULL,
	cache_write_1h BIGINT NOT NULL,
	cache_read     BIGINT NOT NULL,
	reasoning      BIGINT NOT NULL,
	web_search     BIGINT NOT NULL,
	web_fetch      BIGINT NOT NULL,
	speed          TEXT NOT NULL,
	cost_usd       DOUBLE PRECISION
);
CREATE INDEX requests_ts ON requests (ts);
CREATE INDEX requests_session ON requests (source, session_id);

CREATE TABLE tool_calls (
	key              BYTEA PRIMARY KEY,
	machine          TEXT NOT NULL,
	os_user          TEXT NOT NULL,
	source           TEXT NOT NULL,
	session_id       TEXT NOT NULL,
	call_id          TEXT NOT NULL,
	agent_id         TEXT,
	agent_file       TEXT NOT NULL,
	sidechain        BIGINT,
	name             TEXT,
	tool             TEXT,
	server           TEXT,
	plugin           TEXT,
	builtin          BIGINT,
	project          TEXT,
	call_ts          BIGINT,
	result_ts        BIGINT,
	result_tokens    BIGINT,
	result_bytes     BIGINT,
	non_text         BIGINT,
	estimated_tokens BIGINT,
	is_error         BIGINT,
	spilled          BIGINT,
	duration_ms      BIGINT,
	args_hash        BYTEA            -- keyed by the pushing machine's own key: equal hashes mean equal arguments on one machine only
);
CREATE INDEX tool_calls_ts ON tool_calls (call_ts);

CREATE TABLE sessions (
	key        BYTEA PRIMARY KEY,
	machine    TEXT NOT NULL,
	os_user    TEXT NOT NULL,
	source     TEXT NOT NULL,
	session_id TEXT NOT NULL,
	project    TEXT NOT NULL,
	first_ts   BIGINT,
	last_ts    BIGINT
);

CREATE TABLE compactions (
	key        BYTEA PRIMARY KEY,
	machine    TEXT NOT NULL,
	os_user    TEXT NOT NULL,
	source     TEXT NOT NULL,
	session_id TEXT NOT NULL,
	agent_id   TEXT NOT NULL,
	ts         BIGINT NOT NULL,
	trigger    TEXT NOT NULL,
	pre_tokens BIGINT NOT NULL
);
