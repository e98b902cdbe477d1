-- Facts about the store itself: when it was created, which release created it.
-- (PostgreSQL's schema, version for version beside the SQLite one in migrations/; ids and times
-- are text compared byte by byte, COLLATE "C", as SQLite compares them.)
CREATE TABLE service_meta (
    key        TEXT COLLATE "C" PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

INSERT INTO service_meta (key, value, updated_at)
VALUES ('store_created_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
