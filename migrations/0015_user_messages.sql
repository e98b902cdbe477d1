-- Each user's messages in order, for moderators reading what one user sent
-- (GET /v1/users/{user_id}/messages). Like channel_messages (0008 says why no index is written by
-- every send), a table the writer fills in the same batches and under the same mark: messages newer
-- than `indexed_through` are found among the newest rows of `messages`.
CREATE TABLE user_messages (
    user_id  TEXT NOT NULL,
    sequence INTEGER NOT NULL,
    PRIMARY KEY (user_id, sequence)
) STRICT, WITHOUT ROWID;

INSERT INTO user_messages (user_id, sequence)
SELECT user_id, sequence FROM messages WHERE sequence <= (SELECT indexed_through FROM channel_messages_progress);

-- A deleted message leaves its author's list too (channel_messages_follow_deletes moves the mark).
CREATE TRIGGER user_messages_follow_deletes AFTER DELETE ON messages BEGIN
    DELETE FROM user_messages WHERE user_id = old.user_id AND sequence = old.sequence;
END;
