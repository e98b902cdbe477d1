-- The messages table again, with the same columns, rows and rules, in two ways cheaper to write:
--
-- - Its CHECK constraints compare with `=` instead of `IN (...)`. SQLite checks an IN list of more
--   than two constants by building a temporary b-tree each time a statement runs: two of them for
--   every message sent, a large share of its cost.
-- - `sequence` names the rowid (INTEGER PRIMARY KEY), so that a VACUUM cannot renumber it: it
--   orders a channel and its cursors.
--
-- SQLite cannot change a CHECK in place, so the table is rebuilt: new table, copy, drop, rename.
-- The migrator runs this with foreign keys off, as SQLite's procedure asks, so dropping the old
-- table cascades into no flag or revision; it checks them all before committing. This takes
-- time in proportion to the number of messages stored.
CREATE TABLE messages_rebuilt (
    sequence      INTEGER PRIMARY KEY,
    id            TEXT NOT NULL UNIQUE,
    channel_id    TEXT NOT NULL,
    user_id       TEXT NOT NULL,
    text          TEXT NOT NULL,
    -- The text as sent, when a mask changed it.
    original_text TEXT,
    state         TEXT NOT NULL CHECK (state = 'delivered' OR state = 'bounced' OR state = 'shadowed' OR state = 'removed'
                                       OR state = 'deleted'),
    parent_id     TEXT,
    custom        TEXT,
    -- The verdict that decided the state, as JSON (action, rules and their matches).
    moderation    TEXT,
    -- The action of the rule that bounced the message, which decides what "Send Anyway" does.
    bounce_action TEXT CHECK (bounce_action = 'bounce' OR bounce_action = 'bounce_flag' OR bounce_action = 'bounce_remove'),
    flagged       INTEGER NOT NULL DEFAULT 0 CHECK (flagged = 0 OR flagged = 1),
    edited        INTEGER NOT NULL DEFAULT 0 CHECK (edited = 0 OR edited = 1),
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    -- A message reported by enough users is hidden until reviewed.
    hidden        INTEGER NOT NULL DEFAULT 0 CHECK (hidden = 0 OR hidden = 1)
) STRICT;

INSERT INTO messages_rebuilt (sequence, id, channel_id, user_id, text, original_text, state, parent_id, custom, moderation,
                              bounce_action, flagged, edited, created_at, updated_at, hidden)
SELECT rowid, id, channel_id, user_id, text, original_text, state, parent_id, custom, moderation,
       bounce_action, flagged, edited, created_at, updated_at, hidden
FROM messages;

DROP TABLE messages;
ALTER TABLE messages_rebuilt RENAME TO messages;

-- An index entry ends with the rowid, so this orders each channel's messages too.
CREATE INDEX messages_by_channel ON messages (channel_id);
