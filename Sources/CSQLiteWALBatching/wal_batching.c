// A VFS that passes everything through to SQLite's default VFS, except that it gathers the
// writes a connection makes to its write-ahead log and hands them to the file as one write.
//
// Why: SQLite writes each WAL frame as two writes (its 24-byte header, then the page), so a
// group commit that touches 26 pages costs 52 `pwrite` calls, each with the kernel's fixed cost
// of a file write. Gathered, it costs one.
//
// What the safety rests on, and where each is checked:
// - Held bytes reach the file before anything can look for them. A commit's frames are written
//   out when its commit frame is (its header says it commits), before SQLite syncs them or
//   publishes them in the WAL index, and a failure then fails the commit: whatever the
//   connection's `synchronous` setting. Before a read, size, truncate, sync, map, file control
//   or close of the log, and when a write does not continue the held run.
// - Held bytes never outlive the WAL write lock: the database file's side of the connection is
//   wrapped too, and when it releases the write lock (`xShmLock`) or publishes a new WAL index
//   header (`xShmBarrier`), held bytes are written first. Bytes still held at the lock's release
//   belong to a transaction that failed or rolled back; if they cannot be written they are
//   dropped, so they cannot land later over frames another writer committed meanwhile.
// - A failed write is never forgotten: bytes stay held until they are written, so the sync (or
//   the commit frame) that needs them fails while they cannot be.
// - Batching only where SQLite does not pad a commit to a sector boundary (storage with
//   powersafe overwrite, the default on Linux): padding writes part of a frame after the sync.
//   Checked at each run, from the database file, as SQLite itself decides.
#include "wal_batching.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/// The most bytes held before they are written; larger commits are written in several runs.
/// The default VFS writes at most 128 KiB - 1 bytes in one call (it masks larger lengths and
/// then reports the short write as a full disk), so a run stays within that.
enum { MAX_RUN = 0x1ffff };

/// SQLite's WAL layout: a 32-byte log header, then frames of a 24-byte header and a page; the
/// frame header's bytes 4-7 hold the database size after a commit, 0 in other frames. The WAL
/// write lock is the shared-memory lock slot 0.
enum { WAL_HEADER_BYTES = 32, FRAME_HEADER_BYTES = 24, WAL_WRITE_LOCK_SLOT = 0 };

typedef struct MainFile MainFile;

typedef struct BatchingFile {
    sqlite3_file base;
    /// The inner VFS's file, in the memory right after this struct.
    sqlite3_file *inner;
    /// The database file this log belongs to, when it was found (see `link_log`).
    MainFile *main;
    /// Bytes gathered for the offset `start` and on.
    unsigned char *run;
    size_t length;
    sqlite3_int64 start;
    /// The last frame header written was a commit frame's: its page completes the commit.
    int commit_page_next;
} BatchingFile;

/// A database file, wrapped so that its shared-memory calls reach its log's held bytes.
struct MainFile {
    sqlite3_file base;
    sqlite3_file *inner;
    /// The name SQLite opened it by: a log's name leads back to it (`sqlite3_filename_database`).
    sqlite3_filename name;
    /// Its open log, if any. Both are only used under their connection's mutex.
    BatchingFile *log;
    MainFile *next_open;
};

static const sqlite3_io_methods batching_methods;
static const sqlite3_io_methods main_methods;

/// The database files open through this VFS, to find a log's database file by name.
static pthread_mutex_t open_mains_lock = PTHREAD_MUTEX_INITIALIZER;
static MainFile *open_mains;

static sqlite3_vfs *inner_of(sqlite3_vfs *vfs) { return (sqlite3_vfs *)vfs->pAppData; }

/// Writes the held bytes. On failure they stay held, so whatever needs them next fails too.
static int flush(BatchingFile *file) {
    if (file->length == 0) return SQLITE_OK;
    int code = file->inner->pMethods->xWrite(file->inner, file->run, (int)file->length, file->start);
    if (code == SQLITE_OK) file->length = 0;
    return code;
}

/// At the end of a write transaction: held bytes are written, or dropped if they cannot be.
static void flush_or_drop(BatchingFile *file) {
    if (flush(file) != SQLITE_OK) file->length = 0;
}

/// Whether this log's writes may be gathered: not where SQLite pads commits to a sector.
static int may_batch(BatchingFile *file) {
    sqlite3_file *device = file->main ? file->main->inner : file->inner;
    return (device->pMethods->xDeviceCharacteristics(device) & SQLITE_IOCAP_POWERSAFE_OVERWRITE) != 0;
}

static int write_through(BatchingFile *file, const void *data, int amount, sqlite3_int64 offset) {
    int code = flush(file);
    return code != SQLITE_OK ? code : file->inner->pMethods->xWrite(file->inner, data, amount, offset);
}

static int batching_write(sqlite3_file *base, const void *data, int amount, sqlite3_int64 offset) {
    BatchingFile *file = (BatchingFile *)base;
    size_t size = (size_t)amount;
    int completes_commit = file->commit_page_next;
    file->commit_page_next = 0;
    if (amount == FRAME_HEADER_BYTES && offset >= WAL_HEADER_BYTES) {
        const unsigned char *header = data;
        file->commit_page_next = (header[4] | header[5] | header[6] | header[7]) != 0;
    }
    if (file->length == 0 && !may_batch(file)) return file->inner->pMethods->xWrite(file->inner, data, amount, offset);
    if (file->length > 0 && (offset != file->start + (sqlite3_int64)file->length || file->length + size > MAX_RUN)) {
        int code = flush(file);
        if (code != SQLITE_OK) return code;
    }
    if (size > MAX_RUN) return write_through(file, data, amount, offset);
    if (file->run == NULL) {
        file->run = malloc(MAX_RUN);
        // Out of memory: write through.
        if (file->run == NULL) return write_through(file, data, amount, offset);
    }
    if (file->length == 0) file->start = offset;
    memcpy(file->run + file->length, data, size);
    file->length += size;
    // A commit's frames are in the file before SQLite goes on to sync or publish them.
    return completes_commit ? flush(file) : SQLITE_OK;
}

static int batching_close(sqlite3_file *base) {
    BatchingFile *file = (BatchingFile *)base;
    int flushed = flush(file);
    if (file->main) file->main->log = NULL;
    int closed = file->inner->pMethods->xClose(file->inner);
    free(file->run);
    file->run = NULL;
    file->length = 0;
    return flushed != SQLITE_OK ? flushed : closed;
}
static int batching_read(sqlite3_file *base, void *data, int amount, sqlite3_int64 offset) {
    BatchingFile *file = (BatchingFile *)base;
    int code = flush(file);
    return code != SQLITE_OK ? code : file->inner->pMethods->xRead(file->inner, data, amount, offset);
}

static int batching_truncate(sqlite3_file *base, sqlite3_int64 size) {
    BatchingFile *file = (BatchingFile *)base;
    int code = flush(file);
    return code != SQLITE_OK ? code : file->inner->pMethods->xTruncate(file->inner, size);
}

static int batching_sync(sqlite3_file *base, int flags) {
    BatchingFile *file = (BatchingFile *)base;
    int code = flush(file);
    return code != SQLITE_OK ? code : file->inner->pMethods->xSync(file->inner, flags);
}

static int batching_file_size(sqlite3_file *base, sqlite3_int64 *size) {
    BatchingFile *file = (BatchingFile *)base;
    int code = flush(file);
    return code != SQLITE_OK ? code : file->inner->pMethods->xFileSize(file->inner, size);
}

static int batching_lock(sqlite3_file *base, int level) {
    BatchingFile *file = (BatchingFile *)base;
    return file->inner->pMethods->xLock(file->inner, level);
}

static int batching_unlock(sqlite3_file *base, int level) {
    BatchingFile *file = (BatchingFile *)base;
    return file->inner->pMethods->xUnlock(file->inner, level);
}

static int batching_check_reserved_lock(sqlite3_file *base, int *reserved) {
    BatchingFile *file = (BatchingFile *)base;
    return file->inner->pMethods->xCheckReservedLock(file->inner, reserved);
}

static int batching_file_control(sqlite3_file *base, int operation, void *argument) {
    BatchingFile *file = (BatchingFile *)base;
    int code = flush(file);
    return code != SQLITE_OK ? code : file->inner->pMethods->xFileControl(file->inner, operation, argument);
}

static int batching_sector_size(sqlite3_file *base) {
    BatchingFile *file = (BatchingFile *)base;
    return file->inner->pMethods->xSectorSize(file->inner);
}

static int batching_device_characteristics(sqlite3_file *base) {
    BatchingFile *file = (BatchingFile *)base;
    return file->inner->pMethods->xDeviceCharacteristics(file->inner);
}

// A log is never memory-mapped or given shared memory of its own (the WAL index belongs to the
// database file), but whatever asks is answered as the default VFS would.
static int batching_shm_map(sqlite3_file *base, int region, int size, int extend, void volatile **memory) {
    BatchingFile *file = (BatchingFile *)base;
    if (file->inner->pMethods->iVersion < 2) return SQLITE_IOERR_SHMMAP;
    return file->inner->pMethods->xShmMap(file->inner, region, size, extend, memory);
}

static int batching_shm_lock(sqlite3_file *base, int offset, int count, int flags) {
    BatchingFile *file = (BatchingFile *)base;
    if (file->inner->pMethods->iVersion < 2) return SQLITE_IOERR_SHMLOCK;
    return file->inner->pMethods->xShmLock(file->inner, offset, count, flags);
}

static void batching_shm_barrier(sqlite3_file *base) {
    BatchingFile *file = (BatchingFile *)base;
    if (file->inner->pMethods->iVersion >= 2) file->inner->pMethods->xShmBarrier(file->inner);
}

static int batching_shm_unmap(sqlite3_file *base, int delete_flag) {
    BatchingFile *file = (BatchingFile *)base;
    if (file->inner->pMethods->iVersion < 2) return SQLITE_OK;
    return file->inner->pMethods->xShmUnmap(file->inner, delete_flag);
}

static int batching_fetch(sqlite3_file *base, sqlite3_int64 offset, int amount, void **page) {
    BatchingFile *file = (BatchingFile *)base;
    *page = NULL;
    int code = flush(file);
    if (code != SQLITE_OK || file->inner->pMethods->iVersion < 3) return code;
    return file->inner->pMethods->xFetch(file->inner, offset, amount, page);
}

static int batching_unfetch(sqlite3_file *base, sqlite3_int64 offset, void *page) {
    BatchingFile *file = (BatchingFile *)base;
    if (file->inner->pMethods->iVersion < 3) return SQLITE_OK;
    return file->inner->pMethods->xUnfetch(file->inner, offset, page);
}

static const sqlite3_io_methods batching_methods = {
    .iVersion = 3,
    .xClose = batching_close,
    .xRead = batching_read,
    .xWrite = batching_write,
    .xTruncate = batching_truncate,
    .xSync = batching_sync,
    .xFileSize = batching_file_size,
    .xLock = batching_lock,
    .xUnlock = batching_unlock,
    .xCheckReservedLock = batching_check_reserved_lock,
    .xFileControl = batching_file_control,
    .xSectorSize = batching_sector_size,
    .xDeviceCharacteristics = batching_device_characteristics,
    .xShmMap = batching_shm_map,
    .xShmLock = batching_shm_lock,
    .xShmBarrier = batching_shm_barrier,
    .xShmUnmap = batching_shm_unmap,
    .xFetch = batching_fetch,
    .xUnfetch = batching_unfetch,
};

// The database file's methods: passed through, but for the two moments its log's held bytes
// must be written (see the top of this file).
#define INNER(base) (((MainFile *)(base))->inner)
static int main_close(sqlite3_file *base) {
    MainFile *file = (MainFile *)base;
    pthread_mutex_lock(&open_mains_lock);
    for (MainFile **link = &open_mains; *link; link = &(*link)->next_open) {
        if (*link == file) { *link = file->next_open; break; }
    }
    pthread_mutex_unlock(&open_mains_lock);
    if (file->log) file->log->main = NULL;
    return file->inner->pMethods->xClose(file->inner);
}
static int main_read(sqlite3_file *base, void *data, int amount, sqlite3_int64 offset) {
    return INNER(base)->pMethods->xRead(INNER(base), data, amount, offset);
}
static int main_write(sqlite3_file *base, const void *data, int amount, sqlite3_int64 offset) {
    return INNER(base)->pMethods->xWrite(INNER(base), data, amount, offset);
}
static int main_truncate(sqlite3_file *base, sqlite3_int64 size) { return INNER(base)->pMethods->xTruncate(INNER(base), size); }
static int main_sync(sqlite3_file *base, int flags) { return INNER(base)->pMethods->xSync(INNER(base), flags); }
static int main_file_size(sqlite3_file *base, sqlite3_int64 *size) { return INNER(base)->pMethods->xFileSize(INNER(base), size); }
static int main_lock(sqlite3_file *base, int level) { return INNER(base)->pMethods->xLock(INNER(base), level); }
static int main_unlock(sqlite3_file *base, int level) { return INNER(base)->pMethods->xUnlock(INNER(base), level); }
static int main_check_reserved_lock(sqlite3_file *base, int *reserved) {
    return INNER(base)->pMethods->xCheckReservedLock(INNER(base), reserved);
}
static int main_file_control(sqlite3_file *base, int operation, void *argument) {
    return INNER(base)->pMethods->xFileControl(INNER(base), operation, argument);
}
static int main_sector_size(sqlite3_file *base) { return INNER(base)->pMethods->xSectorSize(INNER(base)); }
static int main_device_characteristics(sqlite3_file *base) { return INNER(base)->pMethods->xDeviceCharacteristics(INNER(base)); }
static int main_shm_map(sqlite3_file *base, int region, int size, int extend, void volatile **memory) {
    if (INNER(base)->pMethods->iVersion < 2) return SQLITE_IOERR_SHMMAP;
    return INNER(base)->pMethods->xShmMap(INNER(base), region, size, extend, memory);
}
static int main_shm_lock(sqlite3_file *base, int offset, int count, int flags) {
    MainFile *file = (MainFile *)base;
    if (file->inner->pMethods->iVersion < 2) return SQLITE_IOERR_SHMLOCK;
    // Releasing the write lock: nothing of this writer's may be written after another's frames.
    if (file->log && (flags & SQLITE_SHM_UNLOCK) && offset <= WAL_WRITE_LOCK_SLOT && offset + count > WAL_WRITE_LOCK_SLOT) {
        flush_or_drop(file->log);
    }
    return file->inner->pMethods->xShmLock(file->inner, offset, count, flags);
}
static void main_shm_barrier(sqlite3_file *base) {
    MainFile *file = (MainFile *)base;
    // SQLite publishes a new WAL index header around this barrier: its frames go out first.
    if (file->log) flush(file->log);
    if (file->inner->pMethods->iVersion >= 2) file->inner->pMethods->xShmBarrier(file->inner);
}
static int main_shm_unmap(sqlite3_file *base, int delete_flag) {
    if (INNER(base)->pMethods->iVersion < 2) return SQLITE_OK;
    return INNER(base)->pMethods->xShmUnmap(INNER(base), delete_flag);
}
static int main_fetch(sqlite3_file *base, sqlite3_int64 offset, int amount, void **page) {
    *page = NULL;
    if (INNER(base)->pMethods->iVersion < 3) return SQLITE_OK;
    return INNER(base)->pMethods->xFetch(INNER(base), offset, amount, page);
}
static int main_unfetch(sqlite3_file *base, sqlite3_int64 offset, void *page) {
    if (INNER(base)->pMethods->iVersion < 3) return SQLITE_OK;
    return INNER(base)->pMethods->xUnfetch(INNER(base), offset, page);
}
#undef INNER

static const sqlite3_io_methods main_methods = {
    .iVersion = 3,
    .xClose = main_close,
    .xRead = main_read,
    .xWrite = main_write,
    .xTruncate = main_truncate,
    .xSync = main_sync,
    .xFileSize = main_file_size,
    .xLock = main_lock,
    .xUnlock = main_unlock,
    .xCheckReservedLock = main_check_reserved_lock,
    .xFileControl = main_file_control,
    .xSectorSize = main_sector_size,
    .xDeviceCharacteristics = main_device_characteristics,
    .xShmMap = main_shm_map,
    .xShmLock = main_shm_lock,
    .xShmBarrier = main_shm_barrier,
    .xShmUnmap = main_shm_unmap,
    .xFetch = main_fetch,
    .xUnfetch = main_unfetch,
};

/// Finds the database file a log belongs to: SQLite keeps a log's name in the same allocation as
/// its database's, and `sqlite3_filename_database` leads from one to the other.
static void link_log(BatchingFile *log, sqlite3_filename name) {
    sqlite3_filename database = sqlite3_filename_database(name);
    pthread_mutex_lock(&open_mains_lock);
    for (MainFile *main = open_mains; main; main = main->next_open) {
        if (main->name == database) {
            main->log = log;
            log->main = main;
            break;
        }
    }
    pthread_mutex_unlock(&open_mains_lock);
}

// Logs and database files are wrapped; every other file is the inner VFS's own, opened straight
// into SQLite's memory (which is sized for any of them), so nothing else pays for this.
static int batching_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *base, int flags, int *out_flags) {
    sqlite3_vfs *inner_vfs = inner_of(vfs);
    if (flags & SQLITE_OPEN_MAIN_DB) {
        MainFile *file = (MainFile *)base;
        memset(file, 0, sizeof *file);
        file->inner = (sqlite3_file *)(file + 1);
        int code = inner_vfs->xOpen(inner_vfs, name, file->inner, flags, out_flags);
        if (code != SQLITE_OK) return code;
        file->base.pMethods = &main_methods;
        file->name = name;
        pthread_mutex_lock(&open_mains_lock);
        file->next_open = open_mains;
        open_mains = file;
        pthread_mutex_unlock(&open_mains_lock);
        return SQLITE_OK;
    }
    if (!(flags & SQLITE_OPEN_WAL)) return inner_vfs->xOpen(inner_vfs, name, base, flags, out_flags);
    BatchingFile *file = (BatchingFile *)base;
    memset(file, 0, sizeof *file);
    file->inner = (sqlite3_file *)(file + 1);
    int code = inner_vfs->xOpen(inner_vfs, name, file->inner, flags, out_flags);
    // On failure SQLite calls no method of the file, as its pMethods stays NULL.
    if (code != SQLITE_OK) return code;
    file->base.pMethods = &batching_methods;
    if (name) link_log(file, name);
    return SQLITE_OK;
}

static int batching_delete(sqlite3_vfs *vfs, const char *name, int sync_directory) {
    return inner_of(vfs)->xDelete(inner_of(vfs), name, sync_directory);
}

static int batching_access(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    return inner_of(vfs)->xAccess(inner_of(vfs), name, flags, result);
}

static int batching_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *output) {
    return inner_of(vfs)->xFullPathname(inner_of(vfs), name, size, output);
}

static void *batching_dl_open(sqlite3_vfs *vfs, const char *name) { return inner_of(vfs)->xDlOpen(inner_of(vfs), name); }

static void batching_dl_error(sqlite3_vfs *vfs, int size, char *message) { inner_of(vfs)->xDlError(inner_of(vfs), size, message); }

static void (*batching_dl_sym(sqlite3_vfs *vfs, void *library, const char *symbol))(void) {
    return inner_of(vfs)->xDlSym(inner_of(vfs), library, symbol);
}

static void batching_dl_close(sqlite3_vfs *vfs, void *library) { inner_of(vfs)->xDlClose(inner_of(vfs), library); }

static int batching_randomness(sqlite3_vfs *vfs, int size, char *output) {
    return inner_of(vfs)->xRandomness(inner_of(vfs), size, output);
}

static int batching_sleep(sqlite3_vfs *vfs, int microseconds) { return inner_of(vfs)->xSleep(inner_of(vfs), microseconds); }

static int batching_current_time(sqlite3_vfs *vfs, double *now) { return inner_of(vfs)->xCurrentTime(inner_of(vfs), now); }

static int batching_last_error(sqlite3_vfs *vfs, int size, char *message) {
    return inner_of(vfs)->xGetLastError ? inner_of(vfs)->xGetLastError(inner_of(vfs), size, message) : 0;
}

static int batching_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    return inner_of(vfs)->xCurrentTimeInt64(inner_of(vfs), now);
}

/// A batching VFS over `inner`, named `name` (both outlive it: it is never unregistered).
static int register_over(sqlite3_vfs *inner, const char *name) {
    // Needs the version 2 methods (xCurrentTimeInt64), as every VFS SQLite ships has.
    if (inner == NULL || inner->iVersion < 2) return SQLITE_ERROR;
    if (sqlite3_vfs_find(name) != NULL) return SQLITE_OK;
    sqlite3_vfs *vfs = calloc(1, sizeof *vfs);
    char *copy = strdup(name);
    if (vfs == NULL || copy == NULL) {
        free(vfs);
        free(copy);
        return SQLITE_NOMEM;
    }
    int wrapped = (int)(sizeof(BatchingFile) > sizeof(MainFile) ? sizeof(BatchingFile) : sizeof(MainFile));
    *vfs = (sqlite3_vfs){
        .iVersion = 2,
        .szOsFile = wrapped + inner->szOsFile,
        .mxPathname = inner->mxPathname,
        .zName = copy,
        .pAppData = inner,
        .xOpen = batching_open,
        .xDelete = batching_delete,
        .xAccess = batching_access,
        .xFullPathname = batching_full_pathname,
        .xDlOpen = batching_dl_open,
        .xDlError = batching_dl_error,
        .xDlSym = batching_dl_sym,
        .xDlClose = batching_dl_close,
        .xRandomness = batching_randomness,
        .xSleep = batching_sleep,
        .xCurrentTime = batching_current_time,
        .xGetLastError = batching_last_error,
        .xCurrentTimeInt64 = batching_current_time_int64,
    };
    return sqlite3_vfs_register(vfs, 0);
}

static pthread_mutex_t registration_lock = PTHREAD_MUTEX_INITIALIZER;

int wal_batching_register(void) {
    pthread_mutex_lock(&registration_lock);
    int code = sqlite3_vfs_find(WAL_BATCHING_VFS_NAME) ? SQLITE_OK : register_over(sqlite3_vfs_find(NULL), WAL_BATCHING_VFS_NAME);
    pthread_mutex_unlock(&registration_lock);
    return code;
}

int wal_batching_register_over(const char *inner_name, const char *name) {
    pthread_mutex_lock(&registration_lock);
    sqlite3_vfs *inner = sqlite3_vfs_find(inner_name);
    int code = inner ? register_over(inner, name) : SQLITE_ERROR;
    pthread_mutex_unlock(&registration_lock);
    return code;
}
