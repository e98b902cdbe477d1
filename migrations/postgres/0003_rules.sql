-- The moderation rules. Ids are time-ordered, so listing by id lists in creation order.
CREATE TABLE rules (
    id         TEXT COLLATE "C" PRIMARY KEY,
    name       TEXT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('word', 'phrase', 'regex', 'domain', 'email', 'allow')),
    pattern    TEXT NOT NULL,
    action     TEXT CHECK (action IN ('remove', 'shadow', 'bounce_remove', 'bounce_flag', 'bounce', 'mask_flag', 'flag')),
    -- A JSON array of channel ids and glob patterns.
    channels   TEXT NOT NULL DEFAULT '["*"]',
    enabled    INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    priority   INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    created_by TEXT NOT NULL,
    CHECK ((kind = 'allow') = (action IS NULL))
);

CREATE INDEX rules_by_kind ON rules (kind, id);
CREATE INDEX rules_by_action ON rules (action, id);
