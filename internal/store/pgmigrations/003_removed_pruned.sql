-- mcpcost shared usage store (PostgreSQL), version 3: the log of
-- removals is bounded.
--
-- A push that removes rows prunes the oldest entries of removed once it
-- holds more than the store's rows (and more than a floor, see
-- pruneRemoved in push.go): a mirror further behind than that reads less
-- by building itself again than by reading the log. removed_pruned is
-- the highest seq pruned: a mirror that holds a lower seq may have missed
-- a removal, and is built again; one at or above it has missed none.
ALTER TABLE store_info ADD COLUMN removed_pruned BIGINT NOT NULL DEFAULT 0;
