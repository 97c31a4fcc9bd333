-- mcpcost usage store, version 1.
-- Times are Unix milliseconds (UTC). Token counts are integers.

-- Settings of this store: the random key that hashes tool arguments.
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value BLOB NOT NULL
);

-- Every transcript file read, and how far.
CREATE TABLE files (
	id          INTEGER PRIMARY KEY,
	path        TEXT NOT NULL UNIQUE,
	source      TEXT NOT NULL,             -- claude | codex
	session_id  TEXT NOT NULL DEFAULT '',
	agent_id    TEXT NOT NULL DEFAULT '',
	size        INTEGER NOT NULL DEFAULT 0,  -- size when last read
	mtime_ns    INTEGER NOT NULL DEFAULT 0,
	offset      INTEGER NOT NULL DEFAULT 0,  -- bytes read: the end of the last complete line
	lines       INTEGER NOT NULL DEFAULT 0,  -- complete lines read
	head_hash   BLOB,                        -- SHA-256 of the first line: the file's identity
	tail_start  INTEGER NOT NULL DEFAULT 0,  -- where the last line read starts
	tail_hash   BLOB,                        -- SHA-256 of the last line read
	state       BLOB,                        -- the reader's state at offset (Codex)
	corrupt     INTEGER NOT NULL DEFAULT 0,  -- lines skipped as corrupt
	generation  INTEGER NOT NULL DEFAULT 0,  -- bumped each time the file is re-read from the top
	ingested_at INTEGER NOT NULL DEFAULT 0
);

-- Sessions: where (the project's working directory) and when.
CREATE TABLE sessions (
	source     TEXT NOT NULL,
	session_id TEXT NOT NULL,
	project    TEXT NOT NULL DEFAULT '',
	first_ts   INTEGER,
	last_ts    INTEGER,
	file_id    INTEGER,                     -- the session's main file, when known
	PRIMARY KEY (source, session_id)
);

-- One row per model request, after de-duplication.
CREATE TABLE requests (
	id             INTEGER PRIMARY KEY,
	source         TEXT NOT NULL,
	session_id     TEXT NOT NULL,
	agent_id       TEXT NOT NULL DEFAULT '',   -- sub-agent; '' for the main conversation
	sidechain      INTEGER NOT NULL DEFAULT 0,
	file_id        INTEGER NOT NULL,
	line           INTEGER NOT NULL,
	ts             INTEGER NOT NULL,
	model          TEXT NOT NULL DEFAULT '',
	project        TEXT NOT NULL DEFAULT '',
	message_id     TEXT NOT NULL DEFAULT '',
	request_id     TEXT NOT NULL DEFAULT '',
	input          INTEGER NOT NULL DEFAULT 0,
	output         INTEGER NOT NULL DEFAULT 0,
	cache_write_5m INTEGER NOT NULL DEFAULT 0,
	cache_write_1h INTEGER NOT NULL DEFAULT 0,
	cache_read     INTEGER NOT NULL DEFAULT 0,
	reasoning      INTEGER NOT NULL DEFAULT 0,
	web_search     INTEGER NOT NULL DEFAULT 0,
	web_fetch      INTEGER NOT NULL DEFAULT 0,
	speed          TEXT NOT NULL DEFAULT ''
);
CREATE INDEX requests_message ON requests (source, message_id) WHERE message_id <> '';
CREATE INDEX requests_ts ON requests (ts);
CREATE INDEX requests_session ON requests (source, session_id);
CREATE INDEX requests_file ON requests (file_id);

-- One row per tool call, joined to its result by call id. Either half may
-- arrive first (or alone); columns of the missing half are NULL.
-- Arguments are never stored: args_hash is an HMAC-SHA256 of their
-- canonical JSON under the key in meta, enough to recognise a repeat.
CREATE TABLE tool_calls (
	id               INTEGER PRIMARY KEY,
	source           TEXT NOT NULL,
	session_id       TEXT NOT NULL,
	call_id          TEXT NOT NULL,
	agent_id         TEXT,
	sidechain        INTEGER,
	name             TEXT,                  -- as the model saw it
	tool             TEXT,                  -- without the mcp__<server>__ prefix
	server           TEXT,                  -- NULL for a built-in tool
	plugin           TEXT,
	builtin          INTEGER,
	project          TEXT,
	call_ts          INTEGER,
	result_ts        INTEGER,
	result_tokens    INTEGER,               -- exact o200k_base count of the result's text
	result_bytes     INTEGER,
	non_text         INTEGER,               -- blocks that are not text (images, resources)
	estimated_tokens INTEGER,               -- their estimated tokens (not in result_tokens)
	is_error         INTEGER,
	spilled          INTEGER,
	args_hash        BLOB,
	call_file_id     INTEGER,
	call_line        INTEGER,
	result_file_id   INTEGER,
	result_line      INTEGER,
	UNIQUE (source, session_id, call_id)
);
CREATE INDEX tool_calls_ts ON tool_calls (call_ts);
CREATE INDEX tool_calls_server ON tool_calls (server, tool);
CREATE INDEX tool_calls_call_file ON tool_calls (call_file_id);
CREATE INDEX tool_calls_result_file ON tool_calls (result_file_id);

-- Compactions: where the agent summarised the conversation.
CREATE TABLE compactions (
	id         INTEGER PRIMARY KEY,
	source     TEXT NOT NULL,
	session_id TEXT NOT NULL,
	agent_id   TEXT NOT NULL DEFAULT '',
	file_id    INTEGER NOT NULL,
	line       INTEGER NOT NULL,
	ts         INTEGER NOT NULL,
	trigger    TEXT NOT NULL DEFAULT '',
	pre_tokens INTEGER NOT NULL DEFAULT 0,
	UNIQUE (file_id, line)
);

-- Who is ingesting: a lease, renewed while the ingest runs.
CREATE TABLE ingest_lock (
	id         INTEGER PRIMARY KEY CHECK (id = 1),
	owner      TEXT NOT NULL,
	pid        INTEGER NOT NULL,
	expires_at INTEGER NOT NULL
);
