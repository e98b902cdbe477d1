-- The event log: every change that matters outside Bouncer, written in the change's own
-- transaction (a transactional outbox). Ids are handed out from `event_sequence` inside that
-- transaction, whose row stays locked until it commits: ids increase in commit order, so a reader
-- that has seen event N has seen every event before it.
CREATE TABLE events (
    id         INTEGER PRIMARY KEY,
    type       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    data       TEXT NOT NULL
);
CREATE INDEX events_by_type ON events (type, id);
CREATE INDEX events_by_time ON events (created_at);

CREATE TABLE event_sequence (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    last INTEGER NOT NULL
);
INSERT INTO event_sequence (id, last) VALUES (1, 0);
