-- mcpcost usage store, version 8: Claude Code's placeholders for a request
-- refused at the usage limit ("Claude AI usage limit reached|<epoch>"), each
-- with the time the limit resets (Unix milliseconds), which ccusage's
-- blocks report marks a billing block with. A placeholder is no request:
-- it is kept here alone. The transcripts still on disk are read again
-- (their readers' version is older), which fills the table.
CREATE TABLE usage_limits (
	id         INTEGER PRIMARY KEY,
	source     TEXT NOT NULL,
	session_id TEXT NOT NULL,
	file_id    INTEGER NOT NULL,
	line       INTEGER NOT NULL,
	ts         INTEGER NOT NULL,
	reset_ts   INTEGER NOT NULL,
	UNIQUE (file_id, line)
);
CREATE INDEX usage_limits_ts ON usage_limits (ts);
