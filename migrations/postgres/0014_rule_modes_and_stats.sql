-- Rules you can try before enforcing them, rate rules, and what each rule did (see the SQLite
-- migration of the same number).
ALTER TABLE rules DROP CONSTRAINT rules_kind_check;
ALTER TABLE rules ADD CONSTRAINT rules_kind_check
    CHECK (kind IN ('word', 'phrase', 'regex', 'domain', 'email', 'allow', 'flood', 'mentions', 'links'));
ALTER TABLE rules ADD COLUMN mode TEXT NOT NULL DEFAULT 'enforce' CHECK (mode IN ('enforce', 'observe'));
ALTER TABLE rules ADD COLUMN params TEXT;
ALTER TABLE rules ADD COLUMN exempt_roles TEXT NOT NULL DEFAULT '[]';
ALTER TABLE rules ADD COLUMN new_users_only_seconds INTEGER CHECK (new_users_only_seconds > 0);
ALTER TABLE rules ADD CONSTRAINT rules_params_check CHECK ((kind IN ('flood', 'mentions', 'links')) = (params IS NOT NULL));

CREATE TABLE rule_hits (
    rule_id  TEXT COLLATE "C" NOT NULL,
    hour     INTEGER NOT NULL,
    enforced BIGINT NOT NULL DEFAULT 0,
    observed BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (rule_id, hour)
);

CREATE TABLE rule_reviews (
    rule_id     TEXT COLLATE "C" NOT NULL,
    message_id  TEXT COLLATE "C" NOT NULL,
    outcome     TEXT NOT NULL CHECK (outcome IN ('confirmed', 'dismissed')),
    reviewed_at TEXT NOT NULL,
    PRIMARY KEY (rule_id, message_id)
);
CREATE INDEX rule_reviews_by_time ON rule_reviews (rule_id, reviewed_at);

CREATE TABLE user_first_seen (
    user_id       TEXT COLLATE "C" PRIMARY KEY,
    first_seen_at TEXT NOT NULL
);
INSERT INTO user_first_seen (user_id, first_seen_at) SELECT user_id, min(created_at) FROM messages GROUP BY user_id;

-- What rate rules remember of each user's recent messages, shared by the instances: a mark a
-- message and key (the text's fingerprint, or a band of its sketch), with the sketch to confirm a
-- near-duplicate, and a weight (how many links it held). Unlogged, like the send rates: marks
-- live for a rule's window, minutes at most, and are not worth a disk write each.
CREATE UNLOGGED TABLE rate_marks (
    user_id    TEXT COLLATE "C" NOT NULL,
    rule_id    TEXT COLLATE "C" NOT NULL,
    key        BIGINT NOT NULL,
    message_id BIGINT NOT NULL,
    weight     INTEGER NOT NULL,
    sketch     TEXT,       -- the sketch's slots in hex, 8 digits each; NULL when not needed
    at         DOUBLE PRECISION NOT NULL
);
CREATE INDEX rate_marks_by_key ON rate_marks (user_id, rule_id, key, at);
CREATE INDEX rate_marks_by_age ON rate_marks (at);
