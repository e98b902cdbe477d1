-- Appeals: an author contests a bounced or removed message, or a user the ban in force; a
-- moderator upholds or overturns it. Strikes: each confirmed violation counts against its author
-- until it expires, and a strike policy turns enough of them into a ban.

CREATE TABLE appeals (
    id          TEXT COLLATE "C" PRIMARY KEY,
    target_type TEXT NOT NULL CHECK (target_type IN ('message', 'ban')),
    -- The message's id, or for a ban the banned user's.
    target_id   TEXT COLLATE "C" NOT NULL,
    user_id     TEXT COLLATE "C" NOT NULL,
    reason      TEXT NOT NULL,
    state       TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'upheld', 'overturned')),
    decided_by  TEXT,
    decided_at  TEXT,
    note        TEXT,
    created_at  TEXT NOT NULL
);

-- A message is appealed once, whatever came of it; a ban has one open appeal at a time (a ban
-- given again later may be appealed again).
CREATE UNIQUE INDEX appeals_one_per_message ON appeals (target_id) WHERE target_type = 'message';
CREATE UNIQUE INDEX appeals_one_open_per_ban ON appeals (target_id) WHERE target_type = 'ban' AND state = 'open';
-- The moderators' queue (oldest first, ids are time-ordered) and each user's own list.
CREATE INDEX appeals_by_state ON appeals (state, id);
CREATE INDEX appeals_by_user ON appeals (user_id, id);

CREATE TABLE strikes (
    id         TEXT COLLATE "C" PRIMARY KEY,
    user_id    TEXT COLLATE "C" NOT NULL,
    -- message_removed, author_banned or appeal_upheld.
    reason     TEXT NOT NULL,
    message_id TEXT COLLATE "C",
    created_at TEXT NOT NULL,
    -- Fixed when the strike is made, by the policy then in force.
    expires_at TEXT NOT NULL,
    -- Set when an overturned appeal takes the strike back; the row stays as the record.
    revoked_at TEXT
);

CREATE INDEX strikes_active_by_user ON strikes (user_id, expires_at) WHERE revoked_at IS NULL;
-- One strike a message: a removal confirmed again (an upheld appeal of a reviewed removal) is
-- the same violation.
CREATE UNIQUE INDEX strikes_one_per_message ON strikes (message_id) WHERE message_id IS NOT NULL AND revoked_at IS NULL;
