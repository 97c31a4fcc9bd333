-- mcpcost usage store: machines, and what was pushed to shared stores.

-- The machine a row was ingested on and the OS user who ingested it: ''
-- for this store's own ingest (this machine; see Store.SetSelf), a
-- machine's name in a mirror of a shared store (see OpenMirror).
ALTER TABLE requests ADD COLUMN machine TEXT NOT NULL DEFAULT '';
ALTER TABLE requests ADD COLUMN os_user TEXT NOT NULL DEFAULT '';
ALTER TABLE tool_calls ADD COLUMN machine TEXT NOT NULL DEFAULT '';
ALTER TABLE tool_calls ADD COLUMN os_user TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN machine TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN os_user TEXT NOT NULL DEFAULT '';
ALTER TABLE compactions ADD COLUMN machine TEXT NOT NULL DEFAULT '';
ALTER TABLE compactions ADD COLUMN os_user TEXT NOT NULL DEFAULT '';

-- What this store last pushed to each shared store (store: the shared
-- store's id, never its URL): the highest row id of each table it sent
-- (sessions by rowid), the highest entry of push_dirty it sent, and the
-- generation it sent. generation counts the rows deleted (and the
-- requests whose identity changed) since: a push that finds it above
-- pushed_generation compares every row with what the shared store says
-- this machine holds; one that does not sends only the rows above the
-- high-water ids and the rows push_dirty names above its high-water mark.
CREATE TABLE push_state (
	store             TEXT PRIMARY KEY,
	requests          INTEGER NOT NULL DEFAULT 0,
	tool_calls        INTEGER NOT NULL DEFAULT 0,
	sessions          INTEGER NOT NULL DEFAULT 0,
	compactions       INTEGER NOT NULL DEFAULT 0,
	dirty             INTEGER NOT NULL DEFAULT 0,
	generation        INTEGER NOT NULL DEFAULT 0,
	pushed_generation INTEGER NOT NULL DEFAULT -1
);

-- The rows updated since they were stored (tbl: 1 requests, 2
-- tool_calls, 3 sessions, 4 compactions; row: the row's id or rowid),
-- each with the seq of its last update. Kept only once the store has
-- been pushed (push_state has a row): a store never pushed logs nothing.
CREATE TABLE push_dirty (
	tbl INTEGER NOT NULL,
	row INTEGER NOT NULL,
	seq INTEGER NOT NULL,
	PRIMARY KEY (tbl, row)
);
CREATE INDEX push_dirty_seq ON push_dirty (seq);

CREATE TRIGGER push_dirty_requests AFTER UPDATE ON requests
WHEN EXISTS (SELECT 1 FROM push_state)
BEGIN
	INSERT INTO push_dirty (tbl, row, seq) VALUES (1, NEW.id, (SELECT coalesce(max(seq), 0) + 1 FROM push_dirty))
	ON CONFLICT (tbl, row) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER push_dirty_tool_calls AFTER UPDATE ON tool_calls
WHEN EXISTS (SELECT 1 FROM push_state)
BEGIN
	INSERT INTO push_dirty (tbl, row, seq) VALUES (2, NEW.id, (SELECT coalesce(max(seq), 0) + 1 FROM push_dirty))
	ON CONFLICT (tbl, row) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER push_dirty_sessions AFTER UPDATE ON sessions
WHEN EXISTS (SELECT 1 FROM push_state)
BEGIN
	INSERT INTO push_dirty (tbl, row, seq) VALUES (3, NEW.rowid, (SELECT coalesce(max(seq), 0) + 1 FROM push_dirty))
	ON CONFLICT (tbl, row) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER push_dirty_compactions AFTER UPDATE ON compactions
WHEN EXISTS (SELECT 1 FROM push_state)
BEGIN
	INSERT INTO push_dirty (tbl, row, seq) VALUES (4, NEW.id, (SELECT coalesce(max(seq), 0) + 1 FROM push_dirty))
	ON CONFLICT (tbl, row) DO UPDATE SET seq = excluded.seq;
END;

-- A request whose identity in a shared store changed (another copy of
-- it kept) is, for a push, the old one deleted and a new one stored.
CREATE TRIGGER push_rekey_requests AFTER UPDATE ON requests
WHEN (OLD.message_id IS NOT NEW.message_id OR OLD.request_id IS NOT NEW.request_id OR OLD.dedup_session IS NOT NEW.dedup_session
	OR (NEW.message_id = '' AND (OLD.session_id IS NOT NEW.session_id OR OLD.agent_id IS NOT NEW.agent_id OR OLD.ts IS NOT NEW.ts
		OR OLD.model IS NOT NEW.model OR OLD.input IS NOT NEW.input OR OLD.output IS NOT NEW.output
		OR OLD.cache_write_5m IS NOT NEW.cache_write_5m OR OLD.cache_write_1h IS NOT NEW.cache_write_1h OR OLD.cache_read IS NOT NEW.cache_read
		OR OLD.reasoning IS NOT NEW.reasoning)))
	AND EXISTS (SELECT 1 FROM push_state)
BEGIN
	UPDATE push_state SET generation = generation + 1;
END;

CREATE TRIGGER push_drop_requests AFTER DELETE ON requests WHEN EXISTS (SELECT 1 FROM push_state)
BEGIN
	UPDATE push_state SET generation = generation + 1;
END;
CREATE TRIGGER push_drop_tool_calls AFTER DELETE ON tool_calls WHEN EXISTS (SELECT 1 FROM push_state)
BEGIN
	UPDATE push_state SET generation = generation + 1;
END;
CREATE TRIGGER push_drop_sessions AFTER DELETE ON sessions WHEN EXISTS (SELECT 1 FROM push_state)
BEGIN
	UPDATE push_state SET generation = generation + 1;
END;
CREATE TRIGGER push_drop_compactions AFTER DELETE ON compactions WHEN EXISTS (SELECT 1 FROM push_state)
BEGIN
	UPDATE push_state SET generation = generation + 1;
END;
