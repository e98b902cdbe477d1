-- Rules you can try before enforcing them, rate rules, and what each rule did.
--
-- `mode`: an `observe` rule is matched and counted but never decides a verdict. Rate rules
-- (`flood`, `mentions`, `links`) judge a message by its sender's recent ones; their settings are
-- `params` (JSON) and their `pattern` is empty. Any rule may spare some roles (`exempt_roles`, a
-- JSON array) or apply only to users first seen less than `new_users_only_seconds` ago.
-- SQLite cannot change a CHECK constraint in place, so the table is built again.
CREATE TABLE rules_new (
    id                     TEXT PRIMARY KEY,
    name                   TEXT NOT NULL,
    kind                   TEXT NOT NULL CHECK (kind IN ('word', 'phrase', 'regex', 'domain', 'email', 'allow',
                                                         'flood', 'mentions', 'links')),
    pattern                TEXT NOT NULL,
    action                 TEXT CHECK (action IN ('remove', 'shadow', 'bounce_remove', 'bounce_flag', 'bounce', 'mask_flag', 'flag')),
    channels               TEXT NOT NULL DEFAULT '["*"]',
    enabled                INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    priority               INTEGER NOT NULL DEFAULT 0,
    created_at             TEXT NOT NULL,
    updated_at             TEXT NOT NULL,
    created_by             TEXT NOT NULL,
    inflections            INTEGER CHECK (inflections IN (0, 1)),
    mode                   TEXT NOT NULL DEFAULT 'enforce' CHECK (mode IN ('enforce', 'observe')),
    params                 TEXT,
    exempt_roles           TEXT NOT NULL DEFAULT '[]',
    new_users_only_seconds INTEGER CHECK (new_users_only_seconds > 0),
    CHECK ((kind = 'allow') = (action IS NULL)),
    CHECK ((kind IN ('flood', 'mentions', 'links')) = (params IS NOT NULL))
) STRICT, WITHOUT ROWID;

INSERT INTO rules_new (id, name, kind, pattern, action, channels, enabled, priority, created_at, updated_at, created_by, inflections)
SELECT id, name, kind, pattern, action, channels, enabled, priority, created_at, updated_at, created_by, inflections FROM rules;
DROP TABLE rules;
ALTER TABLE rules_new RENAME TO rules;
CREATE INDEX rules_by_kind ON rules (kind, id);
CREATE INDEX rules_by_action ON rules (action, id);

-- Hits of each rule by the hour (`hour`: hours since 1970), counted in memory and added here
-- about once a second, so that sends write nothing for them.
CREATE TABLE rule_hits (
    rule_id  TEXT NOT NULL,
    hour     INTEGER NOT NULL,
    enforced INTEGER NOT NULL DEFAULT 0,
    observed INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (rule_id, hour)
) STRICT, WITHOUT ROWID;

-- How reviews judged the messages a rule hit, one row a rule and message (a later review of the
-- same message replaces the earlier one): what a rule's precision is computed from.
CREATE TABLE rule_reviews (
    rule_id     TEXT NOT NULL,
    message_id  TEXT NOT NULL,
    outcome     TEXT NOT NULL CHECK (outcome IN ('confirmed', 'dismissed')),
    reviewed_at TEXT NOT NULL,
    PRIMARY KEY (rule_id, message_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX rule_reviews_by_time ON rule_reviews (rule_id, reviewed_at);

-- When each user first sent a message, for rules that apply to new users only.
CREATE TABLE user_first_seen (
    user_id       TEXT PRIMARY KEY,
    first_seen_at TEXT NOT NULL
) STRICT, WITHOUT ROWID;
INSERT INTO user_first_seen (user_id, first_seen_at) SELECT user_id, min(created_at) FROM messages GROUP BY user_id;
