-- Webhooks: where events are POSTed, and each delivery with its attempts. A webhook's `cursor` is
-- the last event id fanned out into its deliveries: the dispatcher reads the event log on from
-- there, so a delivery is made for every event of the webhook's types, across restarts.
CREATE TABLE webhooks (
    id              TEXT PRIMARY KEY,
    url             TEXT NOT NULL,
    types           TEXT NOT NULL,      -- a JSON array of event types, or ["*"]
    description     TEXT,
    secret          TEXT NOT NULL,      -- whsec_ and the base64 of the signing key
    enabled         INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    disabled_reason TEXT,
    cursor          INTEGER NOT NULL,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
) STRICT;

-- `payload` is the event as sent (kept, so a retry outlives the event's pruning). A pending
-- delivery is due at `next_attempt_at`; a dispatcher that takes it sets `claimed_until`, and one
-- that died is replaced once that has passed.
CREATE TABLE webhook_deliveries (
    id              INTEGER PRIMARY KEY,
    webhook_id      TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    message_id      TEXT NOT NULL,      -- `webhook-id`: the event id (test deliveries: test_<n>)
    event_type      TEXT NOT NULL,
    payload         TEXT NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    claimed_until   TEXT,
    last_status     INTEGER,
    last_error      TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
) STRICT;
-- A webhook's pending deliveries are found without reading its finished ones.
CREATE INDEX webhook_deliveries_by_state ON webhook_deliveries (webhook_id, state, id);
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, id);
