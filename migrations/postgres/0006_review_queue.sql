-- The review queue as a table the flag triggers keep current, so listing it reads an index
-- instead of grouping every open flag: one row a message with open flags.
CREATE TABLE review_queue (
    message_id    TEXT COLLATE "C" PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
    channel_id    TEXT COLLATE "C" NOT NULL,
    open_flags    INTEGER NOT NULL,
    first_flag_at TEXT NOT NULL,
    last_flag_at  TEXT NOT NULL
);

CREATE INDEX review_queue_by_count ON review_queue (open_flags DESC, first_flag_at, message_id);
CREATE INDEX review_queue_by_age ON review_queue (first_flag_at, message_id);
CREATE INDEX review_queue_by_channel_count ON review_queue (channel_id, open_flags DESC, first_flag_at, message_id);
CREATE INDEX review_queue_by_channel_age ON review_queue (channel_id, first_flag_at, message_id);

-- Flags filed at once on one message by several instances update its row one after the other
-- (the upsert's row lock), so the count stays exact.
CREATE FUNCTION review_queue_flag_opened() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO review_queue (message_id, channel_id, open_flags, first_flag_at, last_flag_at)
    VALUES (NEW.message_id, NEW.channel_id, 1, NEW.created_at, NEW.created_at)
    ON CONFLICT (message_id) DO UPDATE SET open_flags = review_queue.open_flags + 1,
        first_flag_at = least(review_queue.first_flag_at, excluded.first_flag_at),
        last_flag_at = greatest(review_queue.last_flag_at, excluded.last_flag_at);
    RETURN NULL;
END;
$$;
CREATE TRIGGER review_queue_flag_opened AFTER INSERT ON flags FOR EACH ROW WHEN (NEW.state = 'open')
EXECUTE FUNCTION review_queue_flag_opened();

CREATE FUNCTION review_queue_flag_closed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE review_queue SET open_flags = open_flags - 1,
        first_flag_at = coalesce((SELECT min(created_at) FROM flags WHERE message_id = NEW.message_id AND state = 'open'), first_flag_at),
        last_flag_at = coalesce((SELECT max(created_at) FROM flags WHERE message_id = NEW.message_id AND state = 'open'), last_flag_at)
    WHERE message_id = NEW.message_id;
    DELETE FROM review_queue WHERE message_id = NEW.message_id AND open_flags <= 0;
    RETURN NULL;
END;
$$;
CREATE TRIGGER review_queue_flag_closed AFTER UPDATE OF state ON flags FOR EACH ROW
WHEN (OLD.state = 'open' AND NEW.state != 'open') EXECUTE FUNCTION review_queue_flag_closed();

-- The other filters of GET /v1/flags: by the flagged message's author (kept on the flag, so
-- the much larger messages table needs no index for it), and by channel.
ALTER TABLE flags ADD COLUMN author_id TEXT COLLATE "C";
CREATE INDEX flags_by_author ON flags (author_id, id);
CREATE INDEX flags_by_channel ON flags (channel_id, id);
