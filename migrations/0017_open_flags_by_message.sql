-- The review queue reads every open flag of a page's messages (a first page of 50 held about 450
-- in a store of 100,000 flags). flags is keyed by its text id, so reading them through
-- flags_by_message cost a look-up of each flag by its id. This index holds the open flags whole,
-- in the order the queue reads them, and a page reads them from it alone.
CREATE INDEX flags_open_by_message ON flags (message_id, id, channel_id, reporter_id, reason, details, custom, rule_id,
                                             state, resolution, resolved_by, resolved_at, created_at)
    WHERE state = 'open';
-- By message alone: its open flags are read through the index above, which SQLite's planner
-- prefers without statistics only when this one matches no more of a query's terms.
DROP INDEX flags_by_message;
CREATE INDEX flags_by_message ON flags (message_id);
