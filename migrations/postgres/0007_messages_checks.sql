-- SQLite's 0007 rebuilds its messages table so that its CHECKs compare with `=` and `sequence`
-- names the rowid. PostgreSQL's table has had its own `sequence` since 0004, and checks an IN
-- list without cost: nothing to change. The version is kept so the two schemas number alike.
SELECT 1;
