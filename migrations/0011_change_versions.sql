-- A version for each kind of shared state the service keeps in memory, advanced in the same
-- transaction as every change of it. An instance compares these with the versions it has in
-- force and reloads what another instance changed (and orders its own reloads by them).
CREATE TABLE change_versions (
    topic   TEXT PRIMARY KEY CHECK (topic IN ('rules', 'settings', 'overrides', 'bans')),
    version INTEGER NOT NULL
);
INSERT INTO change_versions (topic, version) VALUES ('rules', 0), ('settings', 0), ('overrides', 0), ('bans', 0);
