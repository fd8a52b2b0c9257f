/* The compiled twin of engine/index/identifiers.py's identifier_parts (same answer, byte for
 * byte: tests/engine/index/test_identifiers_native.py holds the two equal).
 *
 * An identifier is a maximal run of ASCII letters and digits holding a case boundary: a
 * lowercase letter or digit before an uppercase letter ("aA"), or two uppercase letters before a
 * lowercase letter ("AAa"). Its parts are what the regex
 * [A-Z]?[a-z]+|[A-Z]+(?=[A-Z][a-z])|[A-Z]+|[0-9]+ finds in it; the answer is the distinct parts
 * of every identifier (case-insensitively, the first spelling seen kept), space-separated.
 *
 * Every character outside ASCII is a separator, as every byte of its UTF-8 encoding is for the
 * Python twin, so the text is read as code points and never encoded. Why compiled: the Python
 * twin visits every identifier and every part in Python (16% of a first index's CPU). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

enum { SEP = 0, LOWER = 1, DIGIT = 2, UPPER = 3 };

static unsigned char char_class[256]; /* SEP above 127 */

static void init_classes(void) {
    for (int c = 0; c < 256; c++) {
        char_class[c] = c >= 'a' && c <= 'z'   ? LOWER
                        : c >= '0' && c <= '9' ? DIGIT
                        : c >= 'A' && c <= 'Z' ? UPPER
                                               : SEP;
    }
}

#define CLASS(c) ((c) < 128 ? char_class[(c)] : SEP)

/* A part as stored in the answer: where it starts in the answer's text, its length, the hash of
 * its lowercase letters. An empty slot has length 0 (a part never is empty). */
typedef struct {
    Py_ssize_t start;
    Py_ssize_t length;
    uint64_t hash;
} Slot;

#define INLINE_SLOTS 128
#define INLINE_TEXT 1024

/* The answer being built: the parts' text, and the set of their lowercase forms. Starts in
 * inline storage, so a document with a few parts allocates nothing. */
typedef struct {
    char *text;
    Py_ssize_t length;
    Py_ssize_t capacity;
    Slot *slots;
    size_t mask;
    size_t count;
    char *scratch; /* one identifier narrowed from a 2- or 4-byte string */
    Py_ssize_t scratch_capacity;
    char inline_text[INLINE_TEXT];
    Slot inline_slots[INLINE_SLOTS];
} Parts;

static void parts_init(Parts *p) {
    p->text = p->inline_text;
    p->length = 0;
    p->capacity = INLINE_TEXT;
    memset(p->inline_slots, 0, sizeof(p->inline_slots));
    p->slots = p->inline_slots;
    p->mask = INLINE_SLOTS - 1;
    p->count = 0;
    p->scratch = NULL;
    p->scratch_capacity = 0;
}

static void parts_free(Parts *p) {
    if (p->text != p->inline_text) PyMem_Free(p->text);
    if (p->slots != p->inline_slots) PyMem_Free(p->slots);
    PyMem_Free(p->scratch);
}

/* ASCII letters and digits only: setting 0x20 lowercases a letter and keeps a digit. */
#define FOLD(c) ((unsigned char)((c) | 0x20))

static uint64_t fold_hash(const char *s, Py_ssize_t n) {
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (Py_ssize_t i = 0; i < n; i++) {
        h ^= FOLD(s[i]);
        h *= 1099511628211ULL;
    }
    return h;
}

static int folded_equal(const char *a, const char *b, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        if (FOLD(a[i]) != FOLD(b[i])) return 0;
    }
    return 1;
}

static int parts_grow_slots(Parts *p) {
    size_t size = (p->mask + 1) * 2;
    Slot *slots = PyMem_Calloc(size, sizeof(Slot));
    if (slots == NULL) return -1;
    for (size_t i = 0; i <= p->mask; i++) {
        Slot *old = &p->slots[i];
        if (old->length == 0) continue;
        size_t at = (size_t)old->hash & (size - 1);
        while (slots[at].length != 0) at = (at + 1) & (size - 1);
        slots[at] = *old;
    }
    if (p->slots != p->inline_slots) PyMem_Free(p->slots);
    p->slots = slots;
    p->mask = size - 1;
    return 0;
}

static int parts_reserve_text(Parts *p, Py_ssize_t more) {
    if (p->length + more <= p->capacity) return 0;
    Py_ssize_t capacity = p->capacity * 2;
    while (capacity < p->length + more) capacity *= 2;
    char *text = PyMem_Malloc((size_t)capacity);
    if (text == NULL) return -1;
    memcpy(text, p->text, (size_t)p->length);
    if (p->text != p->inline_text) PyMem_Free(p->text);
    p->text = text;
    p->capacity = capacity;
    return 0;
}

/* Adds one part unless a part equal to it case-insensitively is already there. */
static int parts_add(Parts *p, const char *part, Py_ssize_t n) {
    uint64_t hash = fold_hash(part, n);
    size_t at = (size_t)hash & p->mask;
    for (;;) {
        Slot *slot = &p->slots[at];
        if (slot->length == 0) break;
        if (slot->hash == hash && slot->length == n &&
            folded_equal(p->text + slot->start, part, n))
            return 0;
        at = (at + 1) & p->mask;
    }
    if (parts_reserve_text(p, n + 1) < 0) return -1;
    if (p->length) p->text[p->length++] = ' ';
    Slot *slot = &p->slots[at];
    slot->start = p->length;
    slot->length = n;
    slot->hash = hash;
    memcpy(p->text + p->length, part, (size_t)n);
    p->length += n;
    if (++p->count * 2 > p->mask + 1) return parts_grow_slots(p);
    return 0;
}

/* The parts of one identifier (ASCII letters and digits only), as the part regex finds them. */
static int add_identifier(Parts *p, const char *w, Py_ssize_t n) {
    Py_ssize_t i = 0;
    while (i < n) {
        Py_ssize_t start = i;
        int c = char_class[(unsigned char)w[i]];
        if (c == UPPER) {
            Py_ssize_t run_end = i + 1;
            while (run_end < n && char_class[(unsigned char)w[run_end]] == UPPER) run_end++;
            if (run_end < n && char_class[(unsigned char)w[run_end]] == LOWER) {
                if (run_end - i == 1) {
                    /* [A-Z]?[a-z]+ */
                    i = run_end + 1;
                    while (i < n && char_class[(unsigned char)w[i]] == LOWER) i++;
                } else {
                    /* [A-Z]+(?=[A-Z][a-z]): the run but its last letter */
                    i = run_end - 1;
                }
            } else {
                i = run_end; /* [A-Z]+ */
            }
        } else {
            /* [a-z]+ or [0-9]+ */
            i++;
            while (i < n && char_class[(unsigned char)w[i]] == c) i++;
        }
        if (parts_add(p, w + start, i - start) < 0) return -1;
    }
    return 0;
}

#define IS_UPPER(c) ((Py_UCS4)(c) - 'A' < 26u)
#define IS_LOWER(c) ((Py_UCS4)(c) - 'a' < 26u)
#define IS_LOWER_OR_DIGIT(c) (IS_LOWER(c) || (Py_UCS4)(c) - '0' < 10u)

/* Every identifier of the text s[0:n] of one string kind, its parts added. The scan looks for
 * uppercase letters only (a few in a hundred characters of prose or code), and tests each for a
 * boundary: "aA" ending at it, or "AAa" starting at it; a boundary's word is taken whole, and
 * the scan resumes after it. A word is narrowed to char when the string is not 1-byte. */
#define DEFINE_SCAN(NAME, T, NARROW)                                                        \
    static int NAME(Parts *p, const T *s, Py_ssize_t n) {                                   \
        Py_ssize_t word_end = 0; /* the scan never looks back past the last word taken */   \
        for (Py_ssize_t i = 0; i < n; i++) {                                                \
            if (!IS_UPPER(s[i])) continue;                                                  \
            if (!((i > 0 && IS_LOWER_OR_DIGIT(s[i - 1])) ||                                 \
                  (i + 2 < n && IS_UPPER(s[i + 1]) && IS_LOWER(s[i + 2]))))                 \
                continue;                                                                   \
            Py_ssize_t start = i;                                                           \
            while (start > word_end && CLASS(s[start - 1]) != SEP) start--;                 \
            Py_ssize_t end = i + 1;                                                         \
            while (end < n && CLASS(s[end]) != SEP) end++;                                  \
            Py_ssize_t length = end - start;                                                \
            const char *word;                                                               \
            if (NARROW) {                                                                   \
                if (length > p->scratch_capacity) {                                         \
                    char *scratch = PyMem_Realloc(p->scratch, (size_t)length);              \
                    if (scratch == NULL) return -1;                                         \
                    p->scratch = scratch;                                                   \
                    p->scratch_capacity = length;                                           \
                }                                                                           \
                for (Py_ssize_t k = 0; k < length; k++) p->scratch[k] = (char)s[start + k]; \
                word = p->scratch;                                                          \
            } else {                                                                        \
                word = (const char *)(s + start);                                           \
            }                                                                               \
            if (add_identifier(p, word, length) < 0) return -1;                             \
            word_end = end;                                                                 \
            i = end;                                                                        \
        }                                                                                   \
        return 0;                                                                           \
    }

DEFINE_SCAN(scan_ucs1, Py_UCS1, 0)
DEFINE_SCAN(scan_ucs2, Py_UCS2, 1)
DEFINE_SCAN(scan_ucs4, Py_UCS4, 1)

static int scan_text(Parts *p, PyObject *text) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const void *data = PyUnicode_DATA(text);
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        return scan_ucs1(p, (const Py_UCS1 *)data, n);
    case PyUnicode_2BYTE_KIND:
        return scan_ucs2(p, (const Py_UCS2 *)data, n);
    default:
        return scan_ucs4(p, (const Py_UCS4 *)data, n);
    }
}

static PyObject *identifier_parts(PyObject *Py_UNUSED(module), PyObject *const *args,
                                  Py_ssize_t nargs) {
    for (Py_ssize_t i = 0; i < nargs; i++) {
        if (!PyUnicode_Check(args[i])) {
            PyErr_Format(PyExc_TypeError, "identifier_parts() takes str, not %.100s",
                         Py_TYPE(args[i])->tp_name);
            return NULL;
        }
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(args[i]) < 0) return NULL;
#endif
    }
    Parts parts;
    parts_init(&parts);
    for (Py_ssize_t i = 0; i < nargs; i++) {
        if (scan_text(&parts, args[i]) < 0) {
            parts_free(&parts);
            return PyErr_NoMemory();
        }
    }
    PyObject *answer = PyUnicode_New(parts.length, 127);
    if (answer != NULL) memcpy(PyUnicode_DATA(answer), parts.text, (size_t)parts.length);
    parts_free(&parts);
    return answer;
}

static PyMethodDef methods[] = {
    {"identifier_parts", (PyCFunction)(void (*)(void))identifier_parts, METH_FASTCALL,
     "identifier_parts(*texts: str) -> str\n--\n\n"
     "The distinct camelCase parts of every identifier in texts, space-separated "
     "(engine.index.identifiers.identifier_parts, compiled)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "engine.index._identifiers_c",
    "The compiled twin of engine.index.identifiers.identifier_parts.",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__identifiers_c(void) {
    init_classes();
    return PyModule_Create(&module);
}
