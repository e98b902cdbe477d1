-- The Matrix rooms each user has posted in (see the SQLite migration of the same number).
CREATE TABLE matrix_rooms (
    user_id       TEXT NOT NULL,
    room_id       TEXT NOT NULL,
    first_seen_at TEXT NOT NULL,
    PRIMARY KEY (user_id, room_id)
);
