-- SHA-256 of the first and the last KiB of the bytes read (and their
-- count): a file whose size has not changed is read again from the top
-- when these differ (it was rewritten in place), and left alone when they
-- do not, whatever its modification time.
ALTER TABLE files ADD COLUMN edge_hash BLOB;
