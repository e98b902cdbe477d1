// A VFS that passes everything through to SQLite's default VFS, except that it gathers the
// writes a connection makes to its write-ahead log and hands them to the file as one write.
//
// Why: SQLite writes each WAL frame as two writes (its 24-byte header, then the page), so a
// group commit that touches 26 pages costs 52 `pwrite` calls, each with the kernel's fixed cost
// of a file write. Gathered, it costs one.
//
// When the gathered bytes reach the file: before the log is synced, read, sized, truncated,
// mapped or closed, before any file control, when a write does not continue the gathered run,
// and when the run reaches its size limit.
//
// Only safe with synchronous=FULL. There, a commit syncs the log before it publishes the new
// frames in the WAL index, so no other connection can look for a frame still held here. With
// synchronous=NORMAL a commit publishes frames without a sync: the store does not use this VFS
// then. The same holds only on storage with powersafe overwrite (the default VFS's default on
// Linux): without it, SQLite pads a commit to a sector boundary and writes the part of the last
// frame past the sync point after the sync, so such a log is written through unbatched.
#include "wal_batching.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/// The most bytes held before they are written; larger commits are written in several runs.
/// The default VFS writes at most 128 KiB - 1 bytes in one call (it masks larger lengths and
/// then reports the short write as a full disk), so a run stays within that.
enum { MAX_RUN = 0x1ffff };

typedef struct BatchingFile {
    sqlite3_file base;
    /// The default VFS's file, in the memory right after this struct.
    sqlite3_file *inner;
    /// Whether writes are gathered at all (see above).
    int batching;
    /// Bytes gathered for the offset `start` and on.
    unsigned char *run;
    size_t length;
    sqlite3_int64 start;
} BatchingFile;

static sqlite3_vfs *inner_vfs;
static sqlite3_vfs batching_vfs;
static const sqlite3_io_methods batching_methods;

static int flush(BatchingFile *file) {
    if (file->length == 0) return SQLITE_OK;
    int code = file->inner->pMethods->xWrite(file->inner, file->run, (int)file->length, file->start);
    // Dropped either way: on an error SQLite fails the commit and writes these frames again.
    file->length = 0;
    return code;
}

static int batching_write(sqlite3_file *base, const void *data, int amount, sqlite3_int64 offset) {
    BatchingFile *file = (BatchingFile *)base;
    size_t size = (size_t)amount;
    if (!file->batching) return file->inner->pMethods->xWrite(file->inner, data, amount, offset);
    if (file->length > 0 && (offset != file->start + (sqlite3_int64)file->length || file->length + size > MAX_RUN)) {
        int code = flush(file);
        if (code != SQLITE_OK) return code;
    }
    if (size > MAX_RUN) return file->inner->pMethods->xWrite(file->inner, data, amount, offset);
    if (file->run == NULL) {
        file->run = malloc(MAX_RUN);
        // Out of memory: write through.
        if (file->run == NULL) return file->inner->pMethods->xWrite(file->inner, data, amount, offset);
    }
    if (file->length == 0) file->start = offset;
    memcpy(file->run + file->length, data, size);
    file->length += size;
    return SQLITE_OK;
}

static int batching_close(sqlite3_file *base) {
    BatchingFile *file = (BatchingFile *)base;
    int flushed = flush(file);
    int closed = file->inner->pMethods->xClose(file->inner);
    free(file->run);
    file->run = NULL;
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

// Every file but a log is the default VFS's own, opened straight into SQLite's memory (which is
// sized for either), so nothing else pays for this.
static int batching_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *base, int flags, int *out_flags) {
    (void)vfs;
    if (!(flags & SQLITE_OPEN_WAL)) return inner_vfs->xOpen(inner_vfs, name, base, flags, out_flags);
    BatchingFile *file = (BatchingFile *)base;
    memset(file, 0, sizeof *file);
    file->inner = (sqlite3_file *)(file + 1);
    int code = inner_vfs->xOpen(inner_vfs, name, file->inner, flags, out_flags);
    // On failure SQLite calls no method of the file, as its pMethods stays NULL.
    if (code != SQLITE_OK) return code;
    file->base.pMethods = &batching_methods;
    file->batching = (file->inner->pMethods->xDeviceCharacteristics(file->inner) & SQLITE_IOCAP_POWERSAFE_OVERWRITE) != 0;
    return SQLITE_OK;
}

static int batching_delete(sqlite3_vfs *vfs, const char *name, int sync_directory) {
    (void)vfs;
    return inner_vfs->xDelete(inner_vfs, name, sync_directory);
}

static int batching_access(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return inner_vfs->xAccess(inner_vfs, name, flags, result);
}

static int batching_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *output) {
    (void)vfs;
    return inner_vfs->xFullPathname(inner_vfs, name, size, output);
}

static void *batching_dl_open(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return inner_vfs->xDlOpen(inner_vfs, name);
}

static void batching_dl_error(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    inner_vfs->xDlError(inner_vfs, size, message);
}

static void (*batching_dl_sym(sqlite3_vfs *vfs, void *library, const char *symbol))(void) {
    (void)vfs;
    return inner_vfs->xDlSym(inner_vfs, library, symbol);
}

static void batching_dl_close(sqlite3_vfs *vfs, void *library) {
    (void)vfs;
    inner_vfs->xDlClose(inner_vfs, library);
}

static int batching_randomness(sqlite3_vfs *vfs, int size, char *output) {
    (void)vfs;
    return inner_vfs->xRandomness(inner_vfs, size, output);
}

static int batching_sleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return inner_vfs->xSleep(inner_vfs, microseconds);
}

static int batching_current_time(sqlite3_vfs *vfs, double *now) {
    (void)vfs;
    return inner_vfs->xCurrentTime(inner_vfs, now);
}

static int batching_last_error(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    return inner_vfs->xGetLastError ? inner_vfs->xGetLastError(inner_vfs, size, message) : 0;
}

static int batching_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    (void)vfs;
    return inner_vfs->xCurrentTimeInt64(inner_vfs, now);
}

static int registration_result = SQLITE_ERROR;
static pthread_once_t registration = PTHREAD_ONCE_INIT;

static void register_once(void) {
    inner_vfs = sqlite3_vfs_find(NULL);
    // Needs the version 2 methods (xCurrentTimeInt64), as every VFS SQLite ships has.
    if (inner_vfs == NULL || inner_vfs->iVersion < 2) return;
    batching_vfs = (sqlite3_vfs){
        .iVersion = 2,
        .szOsFile = (int)sizeof(BatchingFile) + inner_vfs->szOsFile,
        .mxPathname = inner_vfs->mxPathname,
        .zName = WAL_BATCHING_VFS_NAME,
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
    registration_result = sqlite3_vfs_register(&batching_vfs, 0);
}

int wal_batching_register(void) {
    pthread_once(&registration, register_once);
    return registration_result;
}
