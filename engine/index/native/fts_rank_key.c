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
 * table's %_docsize through one blob handle moved row to row, not xColumnSize (a statement a
 * row inside FTS5): the same varints summed the same way, checked against xColumnSize on the
 * cursor's first row, and xColumnSize again wherever the handle cannot read a row.
 */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include <stdint.h>
#include <string.h>

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
    sqlite3_blob *docsize; /* the table's %_docsize row reader, or NULL: xColumnSize */
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

static void free_state(void *p) {
    KeyState *state = p;
    if (state->docsize != NULL) sqlite3_blob_close(state->docsize);
    sqlite3_free(state);
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

/* The row's token count read from the table's %_docsize as FTS5's xColumnSize(-1) reads it (its
 * "sz" varints summed as ints), through a blob handle moved row to row: FTS5 runs a statement
 * a row, 70 % of this function's instructions on a common word. -1: not read (use xColumnSize). */
static int docsize_of(KeyState *state, sqlite3_int64 rowid) {
    unsigned char buf[64];
    if (sqlite3_blob_reopen(state->docsize, rowid) != SQLITE_OK) return -1;
    int n = sqlite3_blob_bytes(state->docsize);
    if (n <= 0 || n > (int)sizeof buf || sqlite3_blob_read(state->docsize, buf, n, 0) != SQLITE_OK)
        return -1;
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

/* A blob handle on ``table``'s %_docsize, checked on the current row against xColumnSize;
 * NULL where it cannot be opened or does not agree. */
static sqlite3_blob *open_docsize(const Fts5ExtensionApi *api, Fts5Context *fts,
                                  sqlite3_context *ctx, KeyState *state, const char *table) {
    sqlite3 *db = sqlite3_context_db_handle(ctx);
    char *name = sqlite3_mprintf("%s_docsize", table);
    if (name == NULL) return NULL;
    sqlite3_blob *blob = NULL;
    int rc = sqlite3_blob_open(db, "main", name, "sz", api->xRowid(fts), 0, &blob);
    sqlite3_free(name);
    if (rc != SQLITE_OK) {
        if (blob != NULL) sqlite3_blob_close(blob);
        return NULL;
    }
    state->docsize = blob;
    int size = -1;
    int read = docsize_of(state, api->xRowid(fts));
    state->docsize = NULL;
    if (api->xColumnSize(fts, -1, &size) != SQLITE_OK || read != size) {
        sqlite3_blob_close(blob);
        return NULL;
    }
    return blob;
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
    state->docsize = NULL;
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
    if (table != NULL) state->docsize = open_docsize(api, fts, ctx, state, table);
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
    int size = state->docsize != NULL ? docsize_of(state, api->xRowid(fts)) : -1;
    if (size < 0 && state->docsize != NULL) { /* a failed move leaves the handle unusable */
        sqlite3_blob_close(state->docsize);
        state->docsize = NULL;
    }
    if (size < 0) {
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
 * not load rather than misread the newer SQL's arguments. */
int sqlite3_adeftsrank_v2_init(sqlite3 *db, char **errmsg, const sqlite3_api_routines *routines) {
    SQLITE_EXTENSION_INIT2(routines);
    fts5_api *api = fts5_api_of(db);
    if (api == NULL) {
        *errmsg = sqlite3_mprintf("%s: this SQLite has no FTS5", FUNCTION_NAME);
        return SQLITE_ERROR;
    }
    return api->xCreateFunction(api, FUNCTION_NAME, NULL, bm25_one_phrase_key, NULL);
}
