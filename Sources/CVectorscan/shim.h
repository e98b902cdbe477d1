#include <hs/hs.h>

// HS_FLAG_* and HS_MODE_* are plain macros Swift imports; these names keep call sites readable.
static inline unsigned int cvs_flag_som_leftmost(void) { return HS_FLAG_SOM_LEFTMOST; }
static inline unsigned int cvs_flag_utf8(void) { return HS_FLAG_UTF8; }
static inline unsigned int cvs_flag_caseless(void) { return HS_FLAG_CASELESS; }
static inline unsigned int cvs_flag_singlematch(void) { return HS_FLAG_SINGLEMATCH; }
static inline unsigned int cvs_mode_block(void) { return HS_MODE_BLOCK; }
// Streaming with exact match starts at any distance (regexes are compiled this way: see
// VectorscanDatabase.swift for why).
static inline unsigned int cvs_mode_stream_exact_start(void) { return HS_MODE_STREAM | HS_MODE_SOM_HORIZON_LARGE; }
