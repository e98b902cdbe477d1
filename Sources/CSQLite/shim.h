#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import: tell SQLite to copy bound text and blobs.
static inline void (*csqlite_transient(void))(void *) { return SQLITE_TRANSIENT; }

// sqlite3_config is variadic; wrap the one call we make.
static inline int csqlite_config_single_thread_off(void) { return sqlite3_config(SQLITE_CONFIG_MULTITHREAD); }
