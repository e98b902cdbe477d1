-- Texts an admin put in place of the bundled ones, per locale and key. The bundled texts live
-- in the binary; only overrides are stored.
CREATE TABLE localization_overrides (
    locale     TEXT COLLATE "C" NOT NULL,
    key        TEXT COLLATE "C" NOT NULL,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    updated_by TEXT NOT NULL,
    PRIMARY KEY (locale, key)
);
