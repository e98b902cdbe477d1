-- Who removed a message by a review decision (see the SQLite migration of the same number).
ALTER TABLE messages ADD COLUMN removed_by TEXT;
