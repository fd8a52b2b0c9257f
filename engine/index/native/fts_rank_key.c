/*
 * ade_bm25_1_key in C: the compiled twin of engine/index/fts_rank.py's bm25_one_phrase_key.
 *
 * FTS5's bm25() without its IDF factor, for a query of one phrase (beside the role word every
 * search's MATCH names), returning both ranking scores (exact-token, split-identifier) as one
 * 16-byte key: two big-endian doubles. A SQLite loadable extension (engine.index.fts_rank loads
 * it on every index connection); the Python twin is registered where this did not build.
 *
 * The key must be byte for byte the Python twin's (tests/engine/index/test_fts_rank_native.py):
 * the same float operations in the same order, the same FTS5 calls where the twin reads the
 * row (apsw's phrase_columns is xPhraseFirstColumn/xPhraseNextColumn, phrase_column_offsets
 * counts xPhraseFirst/xPhraseNext instances of one column, inst_count is xInstCount). Build
 * with -ffp-contract=off (setup.py): a fused multiply-add would round differently.
 *
 * One read differs in how, not what: given the table's name as its first argument (as the
 * ranking calls it, engine.index.sql.score_expressions), the row's length comes from the
 * table's %_docsize through one blob handle moved row to row and, past the first WALK_AFTER
 * rows, one statement walking it newest first beside the match; not xColumnSize (a statement
 * run a row inside FTS5): the same varints summed the same way, checked against xColumnSize on
 * the cursor's first row, and xColumnSize again wherever neither can read a row.
 */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include <stdint.h>
#include <string.h>

/* top_keys.c: registers ade_top_keys on the same connection (one extension, one load). */
int ade_register_top_keys(sqlite3 *db);

#define FUNCTION_NAME "ade_bm25_1_key"

static const double K1 = 1.2;       /* FTS5's bm25() constants (fts5_aux.c) */
static const double B = 0.75;
static const double K1_PLUS_1 = 1.2 + 1; /* the twin's _K1_PLUS_1 = K1 + 1 */

/* The ranking's weights when none are given (fts_rank.EXACT_WEIGHTS, SPLIT_WEIGHTS). */
static const double DEFAULT_WEIGHTS[6] = {1.0, 2.0, 0.0, 0.0, 0.0, 1.0};

static const char ONE_PHRASE_ONLY[] = FUNCTION_NAME " scores one-phrase queries only";
static const char BAD_WEIGHTS[] = FUNCTION_NAME " takes two non-negative weights per column";

/* What the twin's _CursorState keeps between the calls on one cursor. */
typedef struct KeyState {
    /* The table's %_docsize row reader (both NULL: xColumnSize): a blob handle moved row to
     * row, then, past WALK_AFTER rows, a statement walking it newest first (walk_sql). */
    sqlite3_blob *blob;
    sqlite3_stmt *walk;
    char *walk_sql;     /* the walk's statement until it is prepared (then NULL) */
    int rows_read;      /* rows read through the blob handle */
    int walk_on_row;    /* whether the walk stands on a row (walk_rid) */
    int walk_steps;     /* steps the next read may take before it seeks (WALK_STEPS at most) */
    sqlite3_int64 walk_rid;
    double avgdl;
    int inst_are_hits;
    int ncols;
    double *exact_weight; /* per column */
    double *split_weight; /* per column */
    int *hits;            /* per column, scratch for one row */
} KeyState;

static void put_big_endian(unsigned char *out, double value) {
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    for (int i = 7; i >= 0; i--) {
        out[i] = (unsigned char)(bits & 0xff);
        bits >>= 8;
    }
}

static void close_docsize(KeyState *state) {
    if (state->blob != NULL) sqlite3_blob_close(state->blob);
    if (state->walk != NULL) sqlite3_finalize(state->walk);
    sqlite3_free(state->walk_sql);
    state->blob = NULL;
    state->walk = NULL;
    state->walk_sql = NULL;
}

static void free_state(void *p) {
    close_docsize(p);
    sqlite3_free(p);
}

/* An SQLite varint (what FTS5's %_docsize "sz" holds, one a column): its length in bytes, or
 * 0 when it runs past the end. */
static int get_varint(const unsigned char *p, int n, sqlite3_uint64 *value) {
    sqlite3_uint64 v = 0;
    for (int i = 0; i < 9 && i < n; i++) {
        if (i == 8) {
            *value = (v << 8) | p[i];
            return 9;
        }
        v = (v << 7) | (p[i] & 0x7f);
        if (!(p[i] & 0x80)) {
            *value = v;
            return i + 1;
        }
    }
    return 0;
}

/* Rows read through the blob handle before the walk is prepared: compiling a statement costs
 * about ten seeks, and a query of a rare word (a few rows) compiles none (tests/engine/index/
 * test_plans_kept.py holds the query path to no compile per query on a cached connection). */
#define WALK_AFTER 64

/* Rows the walk steps over to reach the next one asked before it seeks instead: the window
 * reads matches newest first, so a common word's next match is the walk's next row or close to
 * it (a step is about a third of a seek's instructions), a rare one's is far (a seek). The
 * allowance halves on each seek and doubles back on each row reached by stepping, so a sparse
 * match pays about one step a row beside its seek. */
#define WALK_STEPS 8

/* Put the walk on ``rowid`` (stepping down to it when it is a few rows below, else seeking):
 * whether it stands there. */
static int walk_to(KeyState *state, sqlite3_int64 rowid) {
    sqlite3_stmt *walk = state->walk;
    if (state->walk_on_row && state->walk_rid >= rowid) {
        for (int steps = 0; state->walk_rid > rowid && steps < state->walk_steps; steps++) {
            if (sqlite3_step(walk) != SQLITE_ROW) {
                state->walk_on_row = 0;
                break;
            }
            state->walk_rid = sqlite3_column_int64(walk, 0);
        }
        if (state->walk_on_row && state->walk_rid <= rowid) {
            if (state->walk_steps < WALK_STEPS) state->walk_steps *= 2;
            return state->walk_rid == rowid;
        }
        if (state->walk_steps > 1) state->walk_steps /= 2;
    }
    sqlite3_reset(walk);
    state->walk_on_row = 0;
    if (sqlite3_bind_int64(walk, 1, rowid) != SQLITE_OK || sqlite3_step(walk) != SQLITE_ROW)
        return 0;
    state->walk_on_row = 1;
    state->walk_rid = sqlite3_column_int64(walk, 0);
    return state->walk_rid == rowid;
}

/* The walk, prepared once the blob handle has read WALK_AFTER rows (it stays NULL where it
 * cannot be prepared: the blob handle reads on). */
static void start_walk(KeyState *state, sqlite3 *db) {
    sqlite3_stmt *walk = NULL;
    if (sqlite3_prepare_v2(db, state->walk_sql, -1, &walk, NULL) == SQLITE_OK) {
        state->walk = walk;
        state->walk_on_row = 0;
        state->walk_steps = WALK_STEPS;
        sqlite3_blob_close(state->blob);
        state->blob = NULL;
    } else {
        sqlite3_finalize(walk);
    }
    sqlite3_free(state->walk_sql);
    state->walk_sql = NULL;
}

/* The row's "sz" (one varint a column) copied into buf through the walk or the blob handle:
 * its length, or -1 where it cannot be read. */
static int read_sz(KeyState *state, sqlite3_int64 rowid, unsigned char *buf, int size) {
    if (state->walk != NULL) {
        if (!walk_to(state, rowid)) return -1;
        int n = sqlite3_column_bytes(state->walk, 1);
        const void *sz = sqlite3_column_blob(state->walk, 1);
        if (sz == NULL || n <= 0 || n > size) return -1;
        memcpy(buf, sz, (size_t)n);
        return n;
    }
    if (sqlite3_blob_reopen(state->blob, rowid) != SQLITE_OK) return -1;
    int n = sqlite3_blob_bytes(state->blob);
    if (n <= 0 || n > size || sqlite3_blob_read(state->blob, buf, n, 0) != SQLITE_OK) return -1;
    state->rows_read++;
    return n;
}

/* The row's token count read from the table's %_docsize as FTS5's xColumnSize(-1) reads it (its
 * "sz" varints summed as ints): FTS5 runs a statement a row, 70 % of this function's
 * instructions on a common word; a blob handle's seek is half of what was left, which the walk
 * mostly replaces by a step. -1: not read (use xColumnSize). */
static int docsize_of(KeyState *state, sqlite3_int64 rowid) {
    unsigned char buf[64];
    int n = read_sz(state, rowid, buf, (int)sizeof buf);
    if (n < 0) return -1;
    int total = 0, off = 0;
    for (int col = 0; col < state->ncols; col++) {
        sqlite3_uint64 v;
        int used = get_varint(buf + off, n - off, &v);
        if (used == 0) return -1;
        off += used;
        total += (int)(v > 0xffffffffu ? 0xffffffffu : v);
    }
    return total;
}

/* A blob handle on ``table``'s %_docsize (and its walk's statement, not prepared yet) in
 * ``state``, checked on the current row against xColumnSize; none where it cannot be opened or
 * does not agree. */
static void open_docsize(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
                         KeyState *state, const char *table) {
    sqlite3 *db = sqlite3_context_db_handle(ctx);
    char *name = sqlite3_mprintf("%s_docsize", table);
    if (name == NULL) return;
    int rc = sqlite3_blob_open(db, "main", name, "sz", api->xRowid(fts), 0, &state->blob);
    sqlite3_free(name);
    if (rc != SQLITE_OK) {
        close_docsize(state);
        return;
    }
    int size = -1;
    int read = docsize_of(state, api->xRowid(fts));
    if (api->xColumnSize(fts, -1, &size) != SQLITE_OK || read != size) {
        close_docsize(state);
        return;
    }
    state->walk_sql = sqlite3_mprintf(
        "SELECT id, sz FROM \"main\".\"%w_docsize\" WHERE id <= ?1 ORDER BY id DESC", table);
}

/* The twin's _CursorState.__init__: NULL with an error set on ctx, or the state. */
static KeyState *new_state(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
                           int nval, sqlite3_value **vals) {
    int phrases = api->xPhraseCount(fts);
    if (phrases != 1 && phrases != 2) { /* the second: the role word (sql.role_match) */
        sqlite3_result_error(ctx, ONE_PHRASE_ONLY, -1);
        return NULL;
    }
    int ncols = api->xColumnCount(fts);
    const char *table = NULL;
    if (nval > 0 && sqlite3_value_type(vals[0]) == SQLITE_TEXT) {
        /* The FTS table's name: its %_docsize is read directly (the twin ignores it). */
        table = (const char *)sqlite3_value_text(vals[0]);
        nval--;
        vals++;
    }
    int nweights = nval ? nval : 6;
    if (nweights != 2 * ncols) {
        sqlite3_result_error(ctx, BAD_WEIGHTS, -1);
        return NULL;
    }
    KeyState *state = sqlite3_malloc64(sizeof(KeyState) + (sqlite3_uint64)ncols *
                                                              (2 * sizeof(double) + sizeof(int)));
    if (state == NULL) {
        sqlite3_result_error_nomem(ctx);
        return NULL;
    }
    state->ncols = ncols;
    state->blob = NULL;
    state->walk = NULL;
    state->walk_sql = NULL;
    state->rows_read = 0;
    state->exact_weight = (double *)(state + 1);
    state->split_weight = state->exact_weight + ncols;
    state->hits = (int *)(state->split_weight + ncols);
    for (int i = 0; i < nweights; i++) {
        double w;
        if (nval) {
            int type = sqlite3_value_type(vals[i]); /* as stored: no text read as a number */
            if (type != SQLITE_INTEGER && type != SQLITE_FLOAT) {
                w = -1.0; /* not a number: refused as the twin refuses it */
            } else if (type == SQLITE_INTEGER) {
                w = (double)sqlite3_value_int64(vals[i]);
            } else {
                w = sqlite3_value_double(vals[i]);
            }
        } else {
            w = DEFAULT_WEIGHTS[i];
        }
        if (w < 0) {
            sqlite3_free(state);
            sqlite3_result_error(ctx, BAD_WEIGHTS, -1);
            return NULL;
        }
        if (i < ncols) {
            state->exact_weight[i] = w;
        } else {
            state->split_weight[i - ncols] = w;
        }
    }
    sqlite3_int64 total = 0, rows = 0;
    int rc = api->xColumnTotalSize(fts, -1, &total);
    if (rc == SQLITE_OK) rc = api->xRowCount(fts, &rows);
    if (rc != SQLITE_OK) {
        sqlite3_free(state);
        sqlite3_result_error_code(ctx, rc);
        return NULL;
    }
    state->avgdl = (double)total / (double)(rows > 1 ? rows : 1);
    state->inst_are_hits = 1;
    if (phrases == 2) {
        /* The role word is NOT'ed (no instance in a matching row) or AND'ed (in every one):
         * xInstCount counts the phrase's hits alone unless the role word has some here. */
        Fts5PhraseIter iter;
        int col = -1;
        rc = api->xPhraseFirstColumn(fts, 1, &iter, &col);
        if (rc != SQLITE_OK) {
            sqlite3_free(state);
            sqlite3_result_error_code(ctx, rc);
            return NULL;
        }
        state->inst_are_hits = col < 0;
    }
    if (table != NULL) open_docsize(api, fts, ctx, state, table);
    rc = api->xSetAuxdata(fts, state, free_state);
    if (rc != SQLITE_OK) { /* SQLite freed it */
        sqlite3_result_error_code(ctx, rc);
        return NULL;
    }
    return state;
}

/* The twin's bm25_one_phrase_key, the same operations in the same order. */
static void bm25_one_phrase_key(const Fts5ExtensionApi *api, Fts5Context *fts,
                                sqlite3_context *ctx, int nval, sqlite3_value **vals) {
    KeyState *state = api->xGetAuxdata(fts, 0);
    if (state == NULL && (state = new_state(api, fts, ctx, nval, vals)) == NULL) return;
    double exact = 0.0, split = 0.0;
    Fts5PhraseIter iter;
    int col = -1, rc;
    rc = api->xPhraseFirstColumn(fts, 0, &iter, &col);
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(ctx, rc);
        return;
    }
    int first = col;
    if (col >= 0) api->xPhraseNextColumn(fts, &iter, &col);
    if (first >= 0 && col < 0 && state->inst_are_hits) {
        /* The usual row: the phrase in one column, and its instances the row's only ones. */
        int hits = 0;
        rc = api->xInstCount(fts, &hits);
        if (rc != SQLITE_OK) {
            sqlite3_result_error_code(ctx, rc);
            return;
        }
        exact += state->exact_weight[first] * (double)hits;
        split += state->split_weight[first] * (double)hits;
    } else if (first >= 0) {
        /* Column by column, in order, as bm25() adds them (the same float sums). */
        int *hits = state->hits;
        memset(hits, 0, sizeof(int) * (size_t)state->ncols);
        int off = -1;
        Fts5PhraseIter inst;
        rc = api->xPhraseFirst(fts, 0, &inst, &col, &off);
        if (rc != SQLITE_OK) {
            sqlite3_result_error_code(ctx, rc);
            return;
        }
        while (col >= 0) {
            if (col < state->ncols) hits[col]++;
            api->xPhraseNext(fts, &inst, &col, &off);
        }
        api->xPhraseFirstColumn(fts, 0, &iter, &col);
        while (col >= 0) {
            exact += state->exact_weight[col] * (double)hits[col];
            split += state->split_weight[col] * (double)hits[col];
            api->xPhraseNextColumn(fts, &iter, &col);
        }
    }
    unsigned char key[16];
    if (!(exact != 0.0 || split != 0.0)) {
        put_big_endian(key, -0.0);
        put_big_endian(key + 8, -0.0);
        sqlite3_result_blob(ctx, key, sizeof key, SQLITE_TRANSIENT);
        return;
    }
    if (state->walk_sql != NULL && state->rows_read >= WALK_AFTER)
        start_walk(state, sqlite3_context_db_handle(ctx));
    int size = -1;
    if (state->blob != NULL || state->walk != NULL) size = docsize_of(state, api->xRowid(fts));
    if (size < 0 && state->blob != NULL) { /* a failed move leaves the handle unusable */
        close_docsize(state);
    }
    if (size < 0) { /* no reader, or the walk could not read this row (the next one seeks) */
        rc = api->xColumnSize(fts, -1, &size);
        if (rc != SQLITE_OK) {
            sqlite3_result_error_code(ctx, rc);
            return;
        }
    }
    double norm = K1 * (1 - B + B * (double)size / state->avgdl);
    put_big_endian(key, exact != 0.0 ? -(exact * K1_PLUS_1 / (exact + norm)) : -0.0);
    put_big_endian(key + 8, split != 0.0 ? -(split * K1_PLUS_1 / (split + norm)) : -0.0);
    sqlite3_result_blob(ctx, key, sizeof key, SQLITE_TRANSIENT);
}

/* The connection's FTS5 API (https://sqlite.org/fts5.html#extending_fts5), or NULL. */
static fts5_api *fts5_api_of(sqlite3 *db) {
    fts5_api *api = NULL;
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, NULL) != SQLITE_OK) return NULL;
    sqlite3_bind_pointer(stmt, 1, (void *)&api, "fts5_api_ptr", NULL);
    sqlite3_step(stmt);
    sqlite3_finalize(stmt);
    return api;
}

#ifdef _WIN32
__declspec(dllexport)
#endif
/* Numbered by the calling convention (engine.index.fts_rank._ENTRY_POINT): a stale build does
 * not load rather than misread the newer SQL's arguments (v3: it registers ade_top_keys too). */
int sqlite3_adeftsrank_v3_init(sqlite3 *db, char **errmsg, const sqlite3_api_routines *routines) {
    SQLITE_EXTENSION_INIT2(routines);
    fts5_api *api = fts5_api_of(db);
    if (api == NULL) {
        *errmsg = sqlite3_mprintf("%s: this SQLite has no FTS5", FUNCTION_NAME);
        return SQLITE_ERROR;
    }
    int rc = api->xCreateFunction(api, FUNCTION_NAME, NULL, bm25_one_phrase_key, NULL);
    if (rc == SQLITE_OK) rc = ade_register_top_keys(db);
    return rc;
}
