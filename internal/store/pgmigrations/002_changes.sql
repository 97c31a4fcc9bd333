-- mcpcost shared usage store (PostgreSQL), version 2: changes in order,
-- the store's identity, tool calls keyed across sessions.
--
-- Every row stored or changed takes the next value of change_seq (seq),
-- and every row removed is logged in removed with one, so that a mirror
-- (a reader's local copy) reads only what changed since the seq it holds.
-- Writes happen under the advisory lock (see push.go), one push at a
-- time, so seqs become visible in the order they were taken.

CREATE SEQUENCE change_seq;

-- A tool call is one row per source and call id: the copies of a call in
-- the sessions that resumed its own (on one machine or on several) are
-- one call. The rows pushed before were keyed by session too: they are
-- removed, and every machine's next push sends its rows again in full
-- (the local store keeps, per shared store id, what it pushed, and this
-- store's id is new).
DELETE FROM held;
DELETE FROM requests;
DELETE FROM tool_calls;
DELETE FROM sessions;
DELETE FROM compactions;

ALTER TABLE requests ADD COLUMN seq BIGINT NOT NULL DEFAULT nextval('change_seq');
ALTER TABLE tool_calls ADD COLUMN seq BIGINT NOT NULL DEFAULT nextval('change_seq');
ALTER TABLE sessions ADD COLUMN seq BIGINT NOT NULL DEFAULT nextval('change_seq');
ALTER TABLE compactions ADD COLUMN seq BIGINT NOT NULL DEFAULT nextval('change_seq');
CREATE INDEX requests_seq ON requests (seq);
CREATE INDEX tool_calls_seq ON tool_calls (seq);
CREATE INDEX sessions_seq ON sessions (seq);
CREATE INDEX compactions_seq ON compactions (seq);

-- copied: as in the local store (migration 005): 1 on a request or
-- compaction read from a line copied into a resumed session; on a tool
-- call, 1 when its call line was copied, 2 when its result's was.
ALTER TABLE requests ADD COLUMN copied BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tool_calls ADD COLUMN copied BIGINT NOT NULL DEFAULT 0;
ALTER TABLE compactions ADD COLUMN copied BIGINT NOT NULL DEFAULT 0;

-- The rows removed (no machine holds them any longer): tbl as in held.
CREATE TABLE removed (
	seq BIGINT PRIMARY KEY DEFAULT nextval('change_seq'),
	tbl SMALLINT NOT NULL,
	key BYTEA NOT NULL
);

-- The store's identity: id, random, new when the store is made again (a
-- mirror of another store with the same URL starts again); project_key,
-- the keyed fingerprint of the project key the store was first pushed
-- with ('' when it was pushed without one, NULL before the first push).
CREATE TABLE store_info (
	id          TEXT NOT NULL,
	project_key TEXT
);
INSERT INTO store_info (id) VALUES (md5(random()::text || clock_timestamp()::text || pg_backend_pid()::text));
