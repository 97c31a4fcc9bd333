-- mcpcost usage store: the usage limits are pushed to shared stores.
--
-- The machine and OS user of a usage-limit placeholder, as of the other
-- rows (migration 008): '' for this store's own ingest, a machine's name
-- in a mirror. push_state.usage_limits is the highest row id a push sent
-- (0 on a store that pushed before: its next push sends every
-- placeholder); a placeholder deleted (its file read again from the top)
-- makes the next push compare every row, as a deleted request does. A
-- placeholder is never updated: none is logged in push_dirty.
ALTER TABLE usage_limits ADD COLUMN machine TEXT NOT NULL DEFAULT '';
ALTER TABLE usage_limits ADD COLUMN os_user TEXT NOT NULL DEFAULT '';
ALTER TABLE push_state ADD COLUMN usage_limits INTEGER NOT NULL DEFAULT 0;
CREATE TRIGGER push_drop_usage_limits AFTER DELETE ON usage_limits WHEN EXISTS (SELECT 1 FROM push_state)
BEGIN
	UPDATE push_state SET generation = generation + 1;
END;
