-- Who removed a message by a review decision: the moderator's id, or null when no person did
-- (a rule's removal, or a message never removed). A moderator's removal holds through its
-- author's edits, where a rule's removal is judged again by the new text as an edit is. A new
-- column of nulls: no row is rewritten.
ALTER TABLE messages ADD COLUMN removed_by TEXT;
