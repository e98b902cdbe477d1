-- Harm scores: `score` rules, and the classifier versions trained from moderators' decisions.
--
-- A `score` rule acts on the classifier's score of a text for an attribute: its settings are
-- `params` ({"attribute","threshold"}) and its `pattern` is empty, as a rate rule's. SQLite cannot
-- change a CHECK constraint in place, so the rules table is built again.
CREATE TABLE rules_new (
    id                     TEXT PRIMARY KEY,
    name                   TEXT NOT NULL,
    kind                   TEXT NOT NULL CHECK (kind IN ('word', 'phrase', 'regex', 'domain', 'email', 'allow',
                                                         'flood', 'mentions', 'links', 'score')),
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
    CHECK ((kind IN ('flood', 'mentions', 'links', 'score')) = (params IS NOT NULL))
) STRICT, WITHOUT ROWID;

INSERT INTO rules_new SELECT id, name, kind, pattern, action, channels, enabled, priority, created_at, updated_at, created_by,
                             inflections, mode, params, exempt_roles, new_users_only_seconds FROM rules;
DROP TABLE rules;
ALTER TABLE rules_new RENAME TO rules;
CREATE INDEX rules_by_kind ON rules (kind, id);
CREATE INDEX rules_by_action ON rules (action, id);

-- Each version of the classifier trained here (`POST /v1/classifiers/train`): `training` while an
-- instance trains it, then `ready` with its model file and evaluation, or `failed` with the reason.
-- `in_force` marks the one every instance scores with (none: the model each instance was started
-- with); the change_versions topic `classifier` tells the other instances to load it.
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
    model       BLOB,
    in_force    INTEGER NOT NULL DEFAULT 0 CHECK (in_force IN (0, 1)),
    finished_at TEXT,
    CHECK ((state = 'ready') = (model IS NOT NULL)),
    CHECK (in_force = 0 OR state = 'ready')
) STRICT, WITHOUT ROWID;

CREATE UNIQUE INDEX classifiers_one_in_force ON classifiers (in_force) WHERE in_force = 1;
CREATE INDEX classifiers_by_time ON classifiers (created_at, id);

-- The classifier in force is shared state, with a version as the others have.
CREATE TABLE change_versions_new (
    topic   TEXT PRIMARY KEY CHECK (topic IN ('rules', 'settings', 'overrides', 'bans', 'classifier')),
    version INTEGER NOT NULL
);
INSERT INTO change_versions_new SELECT topic, version FROM change_versions;
INSERT INTO change_versions_new (topic, version) VALUES ('classifier', 0);
DROP TABLE change_versions;
ALTER TABLE change_versions_new RENAME TO change_versions;
