-- Messages, their earlier texts, the flags filed on them, and the service's settings.

-- `sequence` orders a channel's messages; `id` is the client's or the server's id.
CREATE TABLE messages (
    sequence      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id            TEXT COLLATE "C" NOT NULL UNIQUE,
    channel_id    TEXT COLLATE "C" NOT NULL,
    user_id       TEXT COLLATE "C" NOT NULL,
    text          TEXT NOT NULL,
    -- The text as sent, when a mask changed it.
    original_text TEXT,
    state         TEXT NOT NULL CHECK (state IN ('delivered', 'bounced', 'shadowed', 'removed', 'deleted')),
    parent_id     TEXT COLLATE "C",
    custom        TEXT,
    -- The verdict that decided the state, as JSON (action, rules and their matches).
    moderation    TEXT,
    -- The action of the rule that bounced the message, which decides what "Send Anyway" does.
    bounce_action TEXT CHECK (bounce_action IN ('bounce', 'bounce_flag', 'bounce_remove')),
    flagged       INTEGER NOT NULL DEFAULT 0 CHECK (flagged IN (0, 1)),
    edited        INTEGER NOT NULL DEFAULT 0 CHECK (edited IN (0, 1)),
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);

CREATE TABLE message_revisions (
    message_id TEXT COLLATE "C" NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    revision   INTEGER NOT NULL,
    text       TEXT NOT NULL,
    state      TEXT NOT NULL,
    moderation TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (message_id, revision)
);

CREATE TABLE flags (
    id          TEXT COLLATE "C" PRIMARY KEY,
    message_id  TEXT COLLATE "C" NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    channel_id  TEXT COLLATE "C" NOT NULL,
    reporter_id TEXT COLLATE "C" NOT NULL,
    reason      TEXT COLLATE "C" NOT NULL,
    details     TEXT,
    custom      TEXT,
    rule_id     TEXT,
    state       TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'resolved', 'withdrawn')),
    resolution  TEXT CHECK (resolution IN ('dismissed', 'message_removed', 'author_banned')),
    resolved_by TEXT,
    resolved_at TEXT,
    created_at  TEXT NOT NULL
);

CREATE INDEX flags_by_message ON flags (message_id, state);

-- The settings of GET|PATCH /v1/config, one JSON document.
CREATE TABLE settings (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    updated_by TEXT NOT NULL
);
