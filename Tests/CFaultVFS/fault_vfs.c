// See fault_vfs.h. Every file is wrapped; a wrapped file asks `should_fail` before each write,
// sync, read and truncate.
#include "fault_vfs.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

typedef struct FaultFile {
    sqlite3_file base;
    sqlite3_file *inner;
    int kind;
    // The name SQLite opened the file under; it stays valid until the file is closed.
    const char *path;
} FaultFile;

/// One armed fault, for the files under one directory: tests that run at once each arm their own.
typedef struct Fault {
    char *scope;
    int files, operations, error, skip, count;
    unsigned per_million, state;
    long failures;
} Fault;

enum { MAX_SCOPES = 16 };
static sqlite3_vfs *inner_vfs;
static sqlite3_vfs fault_vfs;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Fault faults[MAX_SCOPES];

static int in_scope(const char *path, const char *scope) {
    size_t length = strlen(scope);
    return path != NULL && strncmp(path, scope, length) == 0 && (path[length] == '/' || path[length] == '\0');
}

/// The slot for `scope` (the caller holds `lock`); with `create`, a free slot is taken for it.
static Fault *fault_for(const char *scope, int create) {
    for (int index = 0; index < MAX_SCOPES; index++) {
        if (faults[index].scope != NULL && strcmp(faults[index].scope, scope) == 0) return &faults[index];
    }
    if (!create) return NULL;
    for (int index = 0; index < MAX_SCOPES; index++) {
        if (faults[index].scope == NULL) {
            faults[index] = (Fault){.scope = strdup(scope)};
            return &faults[index];
        }
    }
    abort();  // more directories armed at once than a test run has
}

static int should_fail(FaultFile *file, int operation) {
    pthread_mutex_lock(&lock);
    int error = 0;
    for (int index = 0; index < MAX_SCOPES && error == 0; index++) {
        Fault *armed = &faults[index];
        if (armed->scope == NULL || !in_scope(file->path, armed->scope)) continue;
        if (!(armed->files & file->kind) || !(armed->operations & operation) || armed->count == 0) continue;
        if (armed->skip > 0) {
            armed->skip--;
            continue;
        }
        int chosen = 1;
        if (armed->per_million > 0) {
            armed->state = armed->state * 1103515245u + 12345u;
            chosen = (armed->state >> 8) % 1000000u < armed->per_million;
        }
        if (chosen) {
            error = armed->error;
            armed->failures++;
            if (armed->count > 0) armed->count--;
        }
    }
    pthread_mutex_unlock(&lock);
    return error;
}

#define INNER(base) (((FaultFile *)(base))->inner)
static int fault_close(sqlite3_file *base) { return INNER(base)->pMethods->xClose(INNER(base)); }
static int fault_read(sqlite3_file *base, void *data, int amount, sqlite3_int64 offset) {
    int error = should_fail((FaultFile *)base, FAULT_READ);
    return error ? error : INNER(base)->pMethods->xRead(INNER(base), data, amount, offset);
}
static int fault_write(sqlite3_file *base, const void *data, int amount, sqlite3_int64 offset) {
    int error = should_fail((FaultFile *)base, FAULT_WRITE);
    return error ? error : INNER(base)->pMethods->xWrite(INNER(base), data, amount, offset);
}
static int fault_truncate(sqlite3_file *base, sqlite3_int64 size) {
    int error = should_fail((FaultFile *)base, FAULT_TRUNCATE);
    return error ? error : INNER(base)->pMethods->xTruncate(INNER(base), size);
}
static int fault_sync(sqlite3_file *base, int flags) {
    int error = should_fail((FaultFile *)base, FAULT_SYNC);
    return error ? error : INNER(base)->pMethods->xSync(INNER(base), flags);
}
static int fault_file_size(sqlite3_file *base, sqlite3_int64 *size) { return INNER(base)->pMethods->xFileSize(INNER(base), size); }
static int fault_lock(sqlite3_file *base, int level) { return INNER(base)->pMethods->xLock(INNER(base), level); }
static int fault_unlock(sqlite3_file *base, int level) { return INNER(base)->pMethods->xUnlock(INNER(base), level); }
static int fault_check_reserved_lock(sqlite3_file *base, int *reserved) {
    return INNER(base)->pMethods->xCheckReservedLock(INNER(base), reserved);
}
static int fault_file_control(sqlite3_file *base, int operation, void *argument) {
    return INNER(base)->pMethods->xFileControl(INNER(base), operation, argument);
}
static int fault_sector_size(sqlite3_file *base) { return INNER(base)->pMethods->xSectorSize(INNER(base)); }
static int fault_device_characteristics(sqlite3_file *base) { return INNER(base)->pMethods->xDeviceCharacteristics(INNER(base)); }
static int fault_shm_map(sqlite3_file *base, int region, int size, int extend, void volatile **memory) {
    return INNER(base)->pMethods->xShmMap(INNER(base), region, size, extend, memory);
}
static int fault_shm_lock(sqlite3_file *base, int offset, int count, int flags) {
    return INNER(base)->pMethods->xShmLock(INNER(base), offset, count, flags);
}
static void fault_shm_barrier(sqlite3_file *base) { INNER(base)->pMethods->xShmBarrier(INNER(base)); }
static int fault_shm_unmap(sqlite3_file *base, int delete_flag) { return INNER(base)->pMethods->xShmUnmap(INNER(base), delete_flag); }
static int fault_fetch(sqlite3_file *base, sqlite3_int64 offset, int amount, void **page) {
    // No memory-mapped reads: every read goes through `fault_read`.
    (void)base; (void)offset; (void)amount;
    *page = NULL;
    return SQLITE_OK;
}
static int fault_unfetch(sqlite3_file *base, sqlite3_int64 offset, void *page) { (void)base; (void)offset; (void)page; return SQLITE_OK; }
#undef INNER

static const sqlite3_io_methods fault_methods = {
    .iVersion = 3, .xClose = fault_close, .xRead = fault_read, .xWrite = fault_write, .xTruncate = fault_truncate,
    .xSync = fault_sync, .xFileSize = fault_file_size, .xLock = fault_lock, .xUnlock = fault_unlock,
    .xCheckReservedLock = fault_check_reserved_lock, .xFileControl = fault_file_control, .xSectorSize = fault_sector_size,
    .xDeviceCharacteristics = fault_device_characteristics, .xShmMap = fault_shm_map, .xShmLock = fault_shm_lock,
    .xShmBarrier = fault_shm_barrier, .xShmUnmap = fault_shm_unmap, .xFetch = fault_fetch, .xUnfetch = fault_unfetch,
};

static int fault_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *base, int flags, int *out_flags) {
    (void)vfs;
    FaultFile *file = (FaultFile *)base;
    memset(file, 0, sizeof *file);
    file->inner = (sqlite3_file *)(file + 1);
    file->path = name;
    file->kind = (flags & SQLITE_OPEN_WAL) ? FAULT_LOG : (flags & SQLITE_OPEN_MAIN_DB) ? FAULT_DATABASE : FAULT_JOURNAL;
    int code = inner_vfs->xOpen(inner_vfs, name, file->inner, flags, out_flags);
    if (code != SQLITE_OK) return code;
    file->base.pMethods = &fault_methods;
    return SQLITE_OK;
}

static int fault_delete(sqlite3_vfs *v, const char *n, int s) { (void)v; return inner_vfs->xDelete(inner_vfs, n, s); }
static int fault_access(sqlite3_vfs *v, const char *n, int f, int *r) { (void)v; return inner_vfs->xAccess(inner_vfs, n, f, r); }
static int fault_full_pathname(sqlite3_vfs *v, const char *n, int s, char *o) { (void)v; return inner_vfs->xFullPathname(inner_vfs, n, s, o); }
static void *fault_dl_open(sqlite3_vfs *v, const char *n) { (void)v; return inner_vfs->xDlOpen(inner_vfs, n); }
static void fault_dl_error(sqlite3_vfs *v, int s, char *m) { (void)v; inner_vfs->xDlError(inner_vfs, s, m); }
static void (*fault_dl_sym(sqlite3_vfs *v, void *l, const char *s))(void) { (void)v; return inner_vfs->xDlSym(inner_vfs, l, s); }
static void fault_dl_close(sqlite3_vfs *v, void *l) { (void)v; inner_vfs->xDlClose(inner_vfs, l); }
static int fault_randomness(sqlite3_vfs *v, int s, char *o) { (void)v; return inner_vfs->xRandomness(inner_vfs, s, o); }
static int fault_sleep(sqlite3_vfs *v, int m) { (void)v; return inner_vfs->xSleep(inner_vfs, m); }
static int fault_current_time(sqlite3_vfs *v, double *n) { (void)v; return inner_vfs->xCurrentTime(inner_vfs, n); }
static int fault_last_error(sqlite3_vfs *v, int s, char *m) { (void)v; return inner_vfs->xGetLastError ? inner_vfs->xGetLastError(inner_vfs, s, m) : 0; }
static int fault_current_time_int64(sqlite3_vfs *v, sqlite3_int64 *n) { (void)v; return inner_vfs->xCurrentTimeInt64(inner_vfs, n); }

int fault_vfs_register(const char *name) {
    pthread_mutex_lock(&lock);
    int code = SQLITE_OK;
    if (inner_vfs == NULL) {
        inner_vfs = sqlite3_vfs_find("unix");
        fault_vfs = (sqlite3_vfs){
            .iVersion = 2, .szOsFile = (int)sizeof(FaultFile) + (inner_vfs ? inner_vfs->szOsFile : 0),
            .mxPathname = inner_vfs ? inner_vfs->mxPathname : 512, .zName = strdup(name), .xOpen = fault_open,
            .xDelete = fault_delete, .xAccess = fault_access, .xFullPathname = fault_full_pathname, .xDlOpen = fault_dl_open,
            .xDlError = fault_dl_error, .xDlSym = fault_dl_sym, .xDlClose = fault_dl_close, .xRandomness = fault_randomness,
            .xSleep = fault_sleep, .xCurrentTime = fault_current_time, .xGetLastError = fault_last_error,
            .xCurrentTimeInt64 = fault_current_time_int64,
        };
        code = inner_vfs ? sqlite3_vfs_register(&fault_vfs, 0) : SQLITE_ERROR;
    }
    pthread_mutex_unlock(&lock);
    return code;
}

void fault_vfs_arm(const char *scope, int files, int operations, int error, int skip, int count, unsigned per_million,
                   unsigned seed) {
    pthread_mutex_lock(&lock);
    Fault *armed = fault_for(scope, 1);
    armed->files = files;
    armed->operations = operations;
    armed->error = error;
    armed->skip = skip;
    armed->count = count;
    armed->per_million = per_million;
    armed->state = seed;
    pthread_mutex_unlock(&lock);
}

void fault_vfs_disarm(const char *scope) {
    pthread_mutex_lock(&lock);
    Fault *armed = fault_for(scope, 0);
    if (armed != NULL) armed->count = 0;
    pthread_mutex_unlock(&lock);
}

long fault_vfs_failures(const char *scope) {
    pthread_mutex_lock(&lock);
    Fault *armed = fault_for(scope, 0);
    long failures = armed != NULL ? armed->failures : 0;
    pthread_mutex_unlock(&lock);
    return failures;
}
