#ifndef BOUNCER_WAL_BATCHING_H
#define BOUNCER_WAL_BATCHING_H

/// The name of the VFS `wal_batching_register` adds: open a connection with it to batch that
/// connection's writes to its write-ahead log. See wal_batching.c for when that is safe.
#define WAL_BATCHING_VFS_NAME "bouncer-wal-batching"

/// Registers the VFS (once; later calls return the first call's result). Returns an SQLite
/// result code.
int wal_batching_register(void);

#endif
