-- Harm scores: `score` rules, and the classifier versions trained from moderators' decisions (see
-- the SQLite migration of the same number).
ALTER TABLE rules DROP CONSTRAINT rules_kind_check;
ALTER TABLE rules ADD CONSTRAINT rules_kind_check
    CHECK (kind IN ('word', 'phrase', 'regex', 'domain', 'email', 'allow', 'flood', 'mentions', 'links', 'score'));
ALTER TABLE rules DROP CONSTRAINT rules_params_check;
ALTER TABLE rules ADD CONSTRAINT rules_params_check CHECK ((kind IN ('flood', 'mentions', 'links', 'score')) = (params IS NOT NULL));

CREATE TABLE classifiers (
    id          TEXT PRIMARY KEY,
    state       TEXT NOT NULL CHECK (state IN ('training', 'ready', 'failed')),
    created_at  TEXT NOT NULL,
    created_by  TEXT NOT NULL,
    base_id     TEXT,
    attributes  TEXT NOT NULL DEFAULT '[]',
    languages   TEXT NOT NULL DEFAULT '[]',
    examples    INTEGER NOT NULL DEFAULT 0,
    evaluation  TEXT,
    error       TEXT,
    model       BYTEA,
    in_force    INTEGER NOT NULL DEFAULT 0 CHECK (in_force IN (0, 1)),
    finished_at TEXT,
    CHECK ((state = 'ready') = (model IS NOT NULL)),
    CHECK (in_force = 0 OR state = 'ready')
);

CREATE UNIQUE INDEX classifiers_one_in_force ON classifiers (in_force) WHERE in_force = 1;
CREATE INDEX classifiers_by_time ON classifiers (created_at, id);

ALTER TABLE change_versions DROP CONSTRAINT change_versions_topic_check;
ALTER TABLE change_versions ADD CONSTRAINT change_versions_topic_check
    CHECK (topic IN ('rules', 'settings', 'overrides', 'bans', 'classifier'));
INSERT INTO change_versions (topic, version) VALUES ('classifier', 0);
