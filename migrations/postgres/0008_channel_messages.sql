-- Each channel's messages in order. SQLite keeps them in a table of their own written in batches
-- (its 0008 says why); PostgreSQL keeps an index, written with each message.
CREATE INDEX messages_by_channel ON messages (channel_id, sequence);
