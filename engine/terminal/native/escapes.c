/* The compiled twin of engine/terminal/block.py's python_strip_other_escapes: every escape
 * sequence of OTHER_ESC_PATTERN (engine/terminal/sanitize.py) removed from raw terminal bytes,
 * as re.sub removes them (tests/engine/terminal/test_escapes_native.py holds the two equal).
 *
 * The pattern, from an ESC: a colour "[" [0-9;]* "m"; else nothing when "[" [0-9;]* is followed
 * by one of K G C D ` (a cursor CSI the cell model obeys: this ESC is kept); else one escape of
 * the grammar: a CSI "[" [0-?]* [ -/]* [@-~]?, a string ("]" "P" "X" "^" "_") up to BEL, ESC
 * "\\" or before ESC, CAN, SUB or a newline, or [ -/]* [0-~]? (a lone ESC at the least). Every
 * quantifier is greedy and all that follows it optional, so the first way through is the match
 * and none backtracks. Why compiled: re.sub builds a match for each of the ~100,000 colours of a
 * 10 MB first index's terminal logs. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define ESC 0x1b
#define IN(c, low, high) ((c) >= (low) && (c) <= (high))

/* Where the escape at s[at] (an ESC) ends, or at itself when the pattern does not match there. */
static Py_ssize_t escape_end(const unsigned char *s, Py_ssize_t n, Py_ssize_t at) {
    Py_ssize_t k = at + 1;
    if (k < n && s[k] == '[') {
        Py_ssize_t p = k + 1;
        while (p < n && (IN(s[p], '0', '9') || s[p] == ';')) p++;
        if (p < n) {
            unsigned char c = s[p];
            if (c == 'm') return p + 1;
            if (c == 'K' || c == 'G' || c == 'C' || c == 'D' || c == '`') return at;
        }
        p = k + 1;
        while (p < n && IN(s[p], 0x30, 0x3f)) p++;
        while (p < n && IN(s[p], 0x20, 0x2f)) p++;
        if (p < n && IN(s[p], 0x40, 0x7e)) p++;
        return p;
    }
    if (k < n && (s[k] == ']' || s[k] == 'P' || s[k] == 'X' || s[k] == '^' || s[k] == '_')) {
        Py_ssize_t p = k + 1;
        while (p < n && s[p] != 0x07 && s[p] != ESC && s[p] != '\n' && s[p] != 0x18 &&
               s[p] != 0x1a)
            p++;
        if (p < n && s[p] == 0x07) return p + 1;
        if (p + 1 < n && s[p] == ESC && s[p + 1] == '\\') return p + 2;
        return p;
    }
    while (k < n && IN(s[k], 0x20, 0x2f)) k++;
    if (k < n && IN(s[k], 0x30, 0x7e)) k++;
    return k;
}

static PyObject *strip_other_escapes(PyObject *Py_UNUSED(module), PyObject *raw) {
    if (!PyBytes_Check(raw)) {
        PyErr_Format(PyExc_TypeError, "strip_other_escapes() takes bytes, not %.100s",
                     Py_TYPE(raw)->tp_name);
        return NULL;
    }
    const unsigned char *s = (const unsigned char *)PyBytes_AS_STRING(raw);
    Py_ssize_t n = PyBytes_GET_SIZE(raw);
    const unsigned char *found = memchr(s, ESC, (size_t)n);
    if (found == NULL) return PyBytes_FromStringAndSize((const char *)s, n);
    PyObject *out = PyBytes_FromStringAndSize(NULL, n);
    if (out == NULL) return NULL;
    char *o = PyBytes_AS_STRING(out);
    Py_ssize_t written = 0, kept_from = 0;
    while (found != NULL) {
        Py_ssize_t at = found - s;
        Py_ssize_t end = escape_end(s, n, at);
        Py_ssize_t next = at + 1;
        if (end > at) {
            memcpy(o + written, s + kept_from, (size_t)(at - kept_from));
            written += at - kept_from;
            kept_from = next = end;
        }
        found = next < n ? memchr(s + next, ESC, (size_t)(n - next)) : NULL;
    }
    memcpy(o + written, s + kept_from, (size_t)(n - kept_from));
    written += n - kept_from;
    if (_PyBytes_Resize(&out, written) < 0) return NULL;
    return out;
}

/* The compiled twin of engine/terminal/sanitize.py's python_may_hold_controls: whether the text
 * holds a code point whose UTF-8 (surrogatepass) has a C0 control byte other than \t and \n,
 * DEL, or the lead byte 0xC2 (U+0080-U+00BF, the C1 controls among them). No other code point's
 * UTF-8 holds one of these bytes (continuation bytes are 0x80-0xBF; 0xC2 leads only U+0080-
 * U+00BF; a surrogate is ED A0-BF xx), so the answer is read off the code points themselves,
 * without encoding: one pass instead of an encode, a translate and a search
 * (tests/engine/terminal/test_escapes_native.py holds the two equal). */
#define HOLDS_CONTROL(c) ((c) <= 0x08 || ((c) >= 0x0b && (c) <= 0x1f) || ((c) >= 0x7f && (c) <= 0xbf))

static PyObject *may_hold_controls(PyObject *Py_UNUSED(module), PyObject *text) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "may_hold_controls() takes str, not %.100s",
                     Py_TYPE(text)->tp_name);
        return NULL;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) return NULL;
#endif
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const void *data = PyUnicode_DATA(text);
    int found = 0;
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND: {
        /* Most text holds none: blocks of 256 reduced without a branch a character (the
         * compiler vectorizes the block), stopping after the first block that holds one. */
        const Py_UCS1 *s = data;
        for (Py_ssize_t i = 0; i < n && !found;) {
            Py_ssize_t end = n - i > 256 ? i + 256 : n;
            unsigned held = 0;
            for (; i < end; i++) {
                unsigned c = s[i];
                held |= (c <= 0x08) | (c - 0x0bu <= 0x1fu - 0x0bu) | (c - 0x7fu <= 0xbfu - 0x7fu);
            }
            found = held != 0;
        }
        break;
    }
    case PyUnicode_2BYTE_KIND: {
        const Py_UCS2 *s = data;
        for (Py_ssize_t i = 0; i < n && !found; i++) found = HOLDS_CONTROL(s[i]);
        break;
    }
    default: {
        const Py_UCS4 *s = data;
        for (Py_ssize_t i = 0; i < n && !found; i++) found = HOLDS_CONTROL(s[i]);
        break;
    }
    }
    return PyBool_FromLong(found);
}

static PyMethodDef methods[] = {
    {"may_hold_controls", may_hold_controls, METH_O,
     "may_hold_controls(text: str) -> bool\n--\n\n"
     "Whether control_re can match in text (engine.terminal.sanitize."
     "python_may_hold_controls, compiled)."},
    {"strip_other_escapes", strip_other_escapes, METH_O,
     "strip_other_escapes(raw: bytes) -> bytes\n--\n\n"
     "raw without the escapes of OTHER_ESC_PATTERN (engine.terminal.block."
     "python_strip_other_escapes, compiled)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "engine.terminal._escapes_c",
    "The compiled twins of engine.terminal.block.python_strip_other_escapes and "
    "engine.terminal.sanitize.python_may_hold_controls.",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__escapes_c(void) { return PyModule_Create(&module); }
