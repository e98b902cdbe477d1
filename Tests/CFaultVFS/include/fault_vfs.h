#ifndef BOUNCER_FAULT_VFS_H
#define BOUNCER_FAULT_VFS_H

/// A VFS for the store's tests: it passes everything to SQLite's default VFS, and fails chosen
/// operations on chosen files with a chosen SQLite error, as a full disk (SQLITE_FULL) or a
/// failing device (SQLITE_IOERR_*) would.

/// Which files and operations a fault applies to (bit masks).
enum { FAULT_LOG = 1, FAULT_DATABASE = 2, FAULT_JOURNAL = 4 };
enum { FAULT_WRITE = 1, FAULT_SYNC = 2, FAULT_READ = 4, FAULT_TRUNCATE = 8 };

/// Registers the VFS under `name` (once). Returns an SQLite result code.
int fault_vfs_register(const char *name);

/// Arms a fault for the files under the directory `scope` (each test arms its own directory, so
/// tests that run at once do not fail each other's files): of the operations in `operations` on
/// files in `files`, let `skip` through, then fail the next `count` (-1: all) with `error`; with
/// `per_million` > 0, each of those fails only with that chance (seeded by `seed`, so a run can be
/// replayed). Arming a directory again replaces its fault.
void fault_vfs_arm(const char *scope, int files, int operations, int error, int skip, int count, unsigned per_million,
                   unsigned seed);

/// No more faults under `scope`.
void fault_vfs_disarm(const char *scope);

/// How many operations under `scope` have been failed.
long fault_vfs_failures(const char *scope);

#endif
