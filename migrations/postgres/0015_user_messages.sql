-- Each user's messages in order, for moderators reading what one user sent
-- (GET /v1/users/{user_id}/messages). SQLite keeps a table written in batches instead.
CREATE INDEX messages_by_user ON messages (user_id, sequence);
