-- A version for each kind of shared state the service keeps in memory, advanced in the same
-- transaction as every change of it. An instance compares these with the versions it has in
-- force and reloads what another instance changed (and orders its own reloads by them).
CREATE TABLE change_versions (
    topic   TEXT PRIMARY KEY CHECK (topic IN ('rules', 'settings', 'overrides', 'bans')),
    version BIGINT NOT NULL
);
INSERT INTO change_versions (topic, version) VALUES ('rules', 0), ('settings', 0), ('overrides', 0), ('bans', 0);

-- Each advance is announced to the instances that LISTEN on `bouncer_changes` when its
-- transaction commits (a notification of a transaction that rolls back is never sent). The
-- instances also read the versions every few hundred milliseconds, for a notification missed
-- while a connection was down.
CREATE FUNCTION announce_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('bouncer_changes', NEW.topic || ':' || NEW.version);
    RETURN NULL;
END $$;
CREATE TRIGGER change_versions_announce AFTER UPDATE ON change_versions
    FOR EACH ROW EXECUTE FUNCTION announce_change();

-- Send-rate buckets shared by the instances: one row a user, tokens and when they were counted
-- (seconds since 1970). UNLOGGED: they are not worth a write-ahead log write each send, and after
-- a crash of the database every user starts again with a full burst.
CREATE UNLOGGED TABLE send_rate_buckets (
    user_id    TEXT PRIMARY KEY,
    tokens     DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL,
    granted    INTEGER NOT NULL
);
