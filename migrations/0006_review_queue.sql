-- The review queue as a table the flag triggers keep current, so listing it reads an index
-- instead of grouping every open flag: one row a message with open flags.
CREATE TABLE review_queue (
    message_id    TEXT PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
    channel_id    TEXT NOT NULL,
    open_flags    INTEGER NOT NULL,
    first_flag_at TEXT NOT NULL,
    last_flag_at  TEXT NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX review_queue_by_count ON review_queue (open_flags DESC, first_flag_at, message_id);
CREATE INDEX review_queue_by_age ON review_queue (first_flag_at, message_id);
CREATE INDEX review_queue_by_channel_count ON review_queue (channel_id, open_flags DESC, first_flag_at, message_id);
CREATE INDEX review_queue_by_channel_age ON review_queue (channel_id, first_flag_at, message_id);

CREATE TRIGGER review_queue_flag_opened AFTER INSERT ON flags WHEN NEW.state = 'open'
BEGIN
    INSERT INTO review_queue (message_id, channel_id, open_flags, first_flag_at, last_flag_at)
    VALUES (NEW.message_id, NEW.channel_id, 1, NEW.created_at, NEW.created_at)
    ON CONFLICT (message_id) DO UPDATE SET open_flags = open_flags + 1,
        first_flag_at = min(first_flag_at, excluded.first_flag_at), last_flag_at = max(last_flag_at, excluded.last_flag_at);
END;

CREATE TRIGGER review_queue_flag_closed AFTER UPDATE OF state ON flags WHEN OLD.state = 'open' AND NEW.state != 'open'
BEGIN
    UPDATE review_queue SET open_flags = open_flags - 1,
        first_flag_at = coalesce((SELECT min(created_at) FROM flags WHERE message_id = NEW.message_id AND state = 'open'), first_flag_at),
        last_flag_at = coalesce((SELECT max(created_at) FROM flags WHERE message_id = NEW.message_id AND state = 'open'), last_flag_at)
    WHERE message_id = NEW.message_id;
    DELETE FROM review_queue WHERE message_id = NEW.message_id AND open_flags <= 0;
END;

-- Flags of rows written before this migration.
INSERT INTO review_queue (message_id, channel_id, open_flags, first_flag_at, last_flag_at)
SELECT message_id, min(channel_id), count(*), min(created_at), max(created_at) FROM flags WHERE state = 'open' GROUP BY message_id;

-- The other filters of GET /v1/flags: by the flagged message's author (kept on the flag, so
-- the much larger messages table needs no index for it), and by channel.
ALTER TABLE flags ADD COLUMN author_id TEXT;
UPDATE flags SET author_id = (SELECT user_id FROM messages WHERE messages.id = flags.message_id);
CREATE INDEX flags_by_author ON flags (author_id, id);
CREATE INDEX flags_by_channel ON flags (channel_id, id);
