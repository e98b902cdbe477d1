-- One open flag per reporter and message, held by the store itself: a flag filed twice at once
-- (by two requests, or through two instances of the service on one database) is kept once.
-- The service's own flags (reporter `system`) are exempt: a message may carry several.
-- Should a store hold two open flags of one reporter on one message, the later ones are
-- withdrawn first (the review queue's counts follow, through its triggers).
UPDATE flags SET state = 'withdrawn'
 WHERE state = 'open' AND reporter_id != 'system'
   AND id NOT IN (SELECT min(id) FROM flags WHERE state = 'open' AND reporter_id != 'system' GROUP BY message_id, reporter_id);

CREATE UNIQUE INDEX flags_one_open_per_reporter ON flags (message_id, reporter_id)
    WHERE state = 'open' AND reporter_id != 'system';
