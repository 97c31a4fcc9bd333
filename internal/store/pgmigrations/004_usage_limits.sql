-- mcpcost shared usage store (PostgreSQL), version 4: Claude Code's
-- usage-limit placeholders, each with the time its limit resets (Unix
-- milliseconds), as the local store keeps them (its migration 009),
-- which the blocks report marks a billing block with. held's tbl 5.
--
-- A placeholder is one row per source, session, time and reset. The
-- stores that pushed before send theirs on their next push (the local
-- store's high-water id for them starts at 0).
CREATE TABLE usage_limits (
	key        BYTEA PRIMARY KEY,
	machine    TEXT NOT NULL,
	os_user    TEXT NOT NULL,
	source     TEXT NOT NULL,
	session_id TEXT NOT NULL,
	ts         BIGINT NOT NULL,
	reset_ts   BIGINT NOT NULL,
	seq        BIGINT NOT NULL DEFAULT nextval('change_seq')
);
CREATE INDEX usage_limits_seq ON usage_limits (seq);
CREATE INDEX usage_limits_ts ON usage_limits (ts);
