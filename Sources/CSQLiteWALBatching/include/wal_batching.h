#ifndef BOUNCER_WAL_BATCHING_H
#define BOUNCER_WAL_BATCHING_H

/// The name of the VFS `wal_batching_register` adds: open a connection with it to batch that
/// connection's writes to its write-ahead log. See wal_batching.c for when that is safe.
#define WAL_BATCHING_VFS_NAME "bouncer-wal-batching"

/// Registers the VFS over the default VFS (once). Returns an SQLite result code.
int wal_batching_register(void);

/// Registers a batching VFS named `name` over the VFS named `inner_name` (for tests that put a
/// fault-injecting VFS underneath). Returns an SQLite result code.
int wal_batching_register_over(const char *inner_name, const char *name);

#endif
