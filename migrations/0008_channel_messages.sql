-- Each channel's messages in order, kept in a table of their own and written in batches, instead
-- of the index on messages(channel_id).
--
-- That index was written by every send, into the newest leaf of the sender's channel: with
-- messages spread over many channels, nearly every message of a group commit landed on a page of
-- its own, and those pages were most of what each commit wrote to the log (and later copied into
-- the file). The store's writer now copies new messages into `channel_messages` every few hundred
-- writes (ChannelIndex.swift), which touches each busy channel's page once a batch.
-- `indexed_through` is the newest sequence copied; a channel's newer messages, at most about one
-- batch of rows, are found by reading the newest rows of `messages`.
DROP INDEX messages_by_channel;

CREATE TABLE channel_messages (
    channel_id TEXT NOT NULL,
    sequence   INTEGER NOT NULL,
    PRIMARY KEY (channel_id, sequence)
) STRICT, WITHOUT ROWID;

CREATE TABLE channel_messages_progress (
    only_row        INTEGER PRIMARY KEY CHECK (only_row = 1),
    indexed_through INTEGER NOT NULL
) STRICT;

INSERT INTO channel_messages (channel_id, sequence) SELECT channel_id, sequence FROM messages;
INSERT INTO channel_messages_progress (only_row, indexed_through) VALUES (1, coalesce((SELECT max(sequence) FROM messages), 0));

-- A deleted message leaves its channel. When it was the newest, SQLite gives its sequence to the
-- next message sent (`sequence` is the rowid, without AUTOINCREMENT), so the mark comes back to
-- the newest message left: the newcomer is then among the rows not yet copied, where it is found.
CREATE TRIGGER channel_messages_follow_deletes AFTER DELETE ON messages BEGIN
    DELETE FROM channel_messages WHERE channel_id = old.channel_id AND sequence = old.sequence;
    UPDATE channel_messages_progress SET indexed_through = coalesce((SELECT max(sequence) FROM messages), 0)
     WHERE indexed_through > coalesce((SELECT max(sequence) FROM messages), 0);
END;
