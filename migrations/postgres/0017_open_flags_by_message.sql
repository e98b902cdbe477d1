-- The review queue reads every open flag of a page's messages: an index of the open flags by
-- message and id, carrying every column the queue reads, so a page is read from it in order.
CREATE INDEX flags_open_by_message ON flags (message_id, id)
    INCLUDE (channel_id, reporter_id, reason, details, custom, rule_id, state, resolution, resolved_by, resolved_at, created_at)
    WHERE state = 'open';
