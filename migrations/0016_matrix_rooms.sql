-- The Matrix rooms each user has posted in, as Bouncer has seen them through a homeserver's spam
-- checker: a ban in Bouncer bans the user in each of them. Written once a pair.
CREATE TABLE matrix_rooms (
    user_id       TEXT NOT NULL,
    room_id       TEXT NOT NULL,
    first_seen_at TEXT NOT NULL,
    PRIMARY KEY (user_id, room_id)
);
