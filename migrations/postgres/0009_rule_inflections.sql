-- Whether a word rule also matches the word's inflections (fucks, fucking); NULL follows the
-- rule set's setting (`rule_inflections` in /v1/config).
ALTER TABLE rules ADD COLUMN inflections INTEGER CHECK (inflections IN (0, 1));
