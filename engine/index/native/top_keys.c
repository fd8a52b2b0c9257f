/*
 * ade_top_keys in C: the compiled twin of engine/index/top_keys.py's TopKeys.
 *
 * An aggregate: ade_top_keys(key, rid, k) over a one-phrase query's scored rows (key: the
 * 16-byte ade_bm25_1_key of the row, rid: its row id) keeps the best k rows, ordered as
 * "ORDER BY key DESC, rid DESC" orders them (memcmp of the keys, then the row id), and returns
 * them best first as one blob: per row the key's 16 bytes, then the row id as 8 big-endian
 * bytes. The window statement (engine.index.sql.top_window_sql) used SQLite's sorter for this:
 * an ephemeral b-tree insert per scored row (~2 k instructions), where a heap of k keys costs a
 * memcmp or a few per row.
 *
 * The blob must be byte for byte the twin's (tests/engine/index/test_top_keys.py); its
 * refusals (a key not a 16-byte blob, a row id not an integer, k out of range) carry the twin's
 * text.
 */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUNCTION_NAME "ade_top_keys"
#define KEY_BYTES 16
#define ROW_BYTES (KEY_BYTES + 8)
#define MAX_K 100000 /* engine.index.top_keys.MAX_K */

static const char BAD_KEY[] = FUNCTION_NAME " takes 16-byte keys";
static const char BAD_ROWID[] = FUNCTION_NAME " takes integer row ids";
static const char BAD_K[] = FUNCTION_NAME " keeps from 1 to 100000 rows";

/* A kept row: its key as two unsigned integers read big-endian (they compare as memcmp compares
 * the key's bytes, in two integer comparisons), and its row id. */
typedef struct Row {
    uint64_t high, low;
    sqlite3_int64 rid;
} Row;

/* The aggregate's context (zeroed by SQLite on the first step). */
typedef struct TopKeys {
    Row *heap; /* the kept rows, the worst at the root */
    int k;     /* 0: not started */
    int n;
} TopKeys;

/* Whether a ranks before b: the greater key, then the greater row id (newest first). */
static int ranks_before(const Row *a, const Row *b) {
    if (a->high != b->high) return a->high > b->high;
    if (a->low != b->low) return a->low > b->low;
    return a->rid > b->rid;
}

static uint64_t read_big_endian(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
    return v;
}

static void put_big_endian(unsigned char *out, uint64_t v) {
    for (int i = 7; i >= 0; i--) {
        out[i] = (unsigned char)(v & 0xff);
        v >>= 8;
    }
}

/* Move heap[i] down until no child ranks after it (the root is the worst kept row). */
static void sift_down(Row *heap, int n, int i) {
    for (;;) {
        int worst = i, left = 2 * i + 1, right = left + 1;
        if (left < n && ranks_before(&heap[worst], &heap[left])) worst = left;
        if (right < n && ranks_before(&heap[worst], &heap[right])) worst = right;
        if (worst == i) return;
        Row tmp = heap[i];
        heap[i] = heap[worst];
        heap[worst] = tmp;
        i = worst;
    }
}

static void sift_up(Row *heap, int i) {
    while (i > 0) {
        int parent = (i - 1) / 2;
        if (!ranks_before(&heap[parent], &heap[i])) return;
        Row tmp = heap[i];
        heap[i] = heap[parent];
        heap[parent] = tmp;
        i = parent;
    }
}

static void top_keys_step(sqlite3_context *ctx, int nval, sqlite3_value **vals) {
    (void)nval; /* registered with 3 arguments */
    TopKeys *state = sqlite3_aggregate_context(ctx, sizeof(TopKeys));
    if (state == NULL) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    if (state->k == 0) {
        sqlite3_int64 k = sqlite3_value_int64(vals[2]);
        if (sqlite3_value_type(vals[2]) != SQLITE_INTEGER || k < 1 || k > MAX_K) {
            sqlite3_result_error(ctx, BAD_K, -1);
            return;
        }
        state->heap = sqlite3_malloc64((sqlite3_uint64)k * sizeof(Row));
        if (state->heap == NULL) {
            sqlite3_result_error_nomem(ctx);
            return;
        }
        state->k = (int)k;
    }
    if (sqlite3_value_type(vals[0]) != SQLITE_BLOB || sqlite3_value_bytes(vals[0]) != KEY_BYTES) {
        sqlite3_result_error(ctx, BAD_KEY, -1);
        return;
    }
    if (sqlite3_value_type(vals[1]) != SQLITE_INTEGER) {
        sqlite3_result_error(ctx, BAD_ROWID, -1);
        return;
    }
    const unsigned char *key = sqlite3_value_blob(vals[0]);
    Row row = {read_big_endian(key), read_big_endian(key + 8), sqlite3_value_int64(vals[1])};
    if (state->n < state->k) {
        state->heap[state->n] = row;
        sift_up(state->heap, state->n++);
    } else if (ranks_before(&row, &state->heap[0])) {
        state->heap[0] = row;
        sift_down(state->heap, state->n, 0);
    }
}

static int best_first(const void *pa, const void *pb) {
    const Row *a = pa, *b = pb;
    if (a->high != b->high) return a->high > b->high ? -1 : 1;
    if (a->low != b->low) return a->low > b->low ? -1 : 1;
    return a->rid > b->rid ? -1 : a->rid < b->rid; /* 0: equal rows, equal bytes either way */
}

static void top_keys_final(sqlite3_context *ctx) {
    TopKeys *state = sqlite3_aggregate_context(ctx, 0);
    if (state == NULL || state->heap == NULL) { /* no row (or refused before one was kept) */
        sqlite3_result_zeroblob(ctx, 0);
        return;
    }
    qsort(state->heap, (size_t)state->n, sizeof(Row), best_first);
    unsigned char *out = sqlite3_malloc64((sqlite3_uint64)state->n * ROW_BYTES + 1);
    if (out == NULL) {
        sqlite3_free(state->heap);
        state->heap = NULL;
        sqlite3_result_error_nomem(ctx);
        return;
    }
    for (int i = 0; i < state->n; i++) {
        unsigned char *p = out + (size_t)i * ROW_BYTES;
        put_big_endian(p, state->heap[i].high); /* the key's own bytes again */
        put_big_endian(p + 8, state->heap[i].low);
        /* two's complement, as Python's signed big-endian bytes */
        put_big_endian(p + KEY_BYTES, (uint64_t)state->heap[i].rid);
    }
    sqlite3_result_blob(ctx, out, state->n * ROW_BYTES, sqlite3_free);
    sqlite3_free(state->heap);
    state->heap = NULL;
}

/* Called by the extension's entry point (fts_rank_key.c). */
int ade_register_top_keys(sqlite3 *db);
int ade_register_top_keys(sqlite3 *db) {
    return sqlite3_create_function_v2(db, FUNCTION_NAME, 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                      NULL, NULL, top_keys_step, top_keys_final, NULL);
}
