-- Bans, the audit log, and what the moderators' queries need.

CREATE TABLE bans (
    user_id    TEXT COLLATE "C" PRIMARY KEY,
    reason     TEXT,
    -- A shadow ban stores the user's messages as shadowed instead of refusing them.
    shadow     INTEGER NOT NULL DEFAULT 0 CHECK (shadow IN (0, 1)),
    -- NULL: until lifted. A ban past its time no longer applies.
    expires_at TEXT,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL
);

-- Append-only: nothing updates or deletes these rows.
CREATE TABLE audit_log (
    id          TEXT COLLATE "C" PRIMARY KEY,
    actor_id    TEXT COLLATE "C" NOT NULL,
    action      TEXT COLLATE "C" NOT NULL,
    target_type TEXT NOT NULL,
    target_id   TEXT NOT NULL,
    note        TEXT,
    details     TEXT,
    created_at  TEXT NOT NULL
);

CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is append-only';
END;
$$;
CREATE TRIGGER audit_log_append_only_update BEFORE UPDATE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_append_only_delete BEFORE DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();

CREATE INDEX audit_by_actor ON audit_log (actor_id, id);
CREATE INDEX audit_by_action ON audit_log (action, id);

-- A message reported by enough users is hidden until reviewed.
ALTER TABLE messages ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0 CHECK (hidden IN (0, 1));

CREATE INDEX flags_by_reporter ON flags (reporter_id, message_id, state);
CREATE INDEX flags_open_by_reason ON flags (state, reason, id);
