-- Facts about the store itself: when it was created, which release created it.
CREATE TABLE service_meta (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL
) STRICT;

INSERT INTO service_meta (key, value, updated_at)
VALUES ('store_created_at', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
