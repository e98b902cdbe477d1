-- What caused a ban, so that undoing the cause undoes that ban and nothing else.
-- strike_id: the strike made by the decision that gave the ban (a review's `ban_author`, or the
--   strike that reached a step of the strike policy); NULL for a moderator's ban from the API.
--   An overturned appeal of the ban takes back this strike, and only it.
-- strike_step: for a ban the strike policy gave, the step's count of strikes. When strikes are
--   taken back and the user's active strikes fall below it, the ban is lifted.
ALTER TABLE bans ADD COLUMN strike_id TEXT;
ALTER TABLE bans ADD COLUMN strike_step INTEGER;
