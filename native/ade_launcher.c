/* The installed `ade` on Linux: answers a plain `ade search …` from a running daemon without
 * starting Python (emacsclient-style), and execs the Python `ade` (`ade-py` beside this file)
 * for everything else and on every doubt. README: "Compiled parts"; the wire is the daemon's
 * `search.cli` (engine/search_cli.py, docs/daemon.md).
 *
 * It decides nothing the Python path would decide differently: the socket, its folder and the
 * peer are checked as engine/rpc/paths.py checks them, the context is caller_context() of
 * engine/basics/caller_env.py (tests/tui/cli/test_launcher.py holds the lists below equal to
 * its tuples), and any failure before an answer is fully read and checked execs Python with the
 * same argv and environment. One exception: when the daemon was lost after the request was
 * sent (a timeout, a hang-up), `ADE_DAEMON_LOST=<reason>` tells the Python client so, and it
 * warns and answers in process as it does when that happens to it (engine/rpc/connection.py),
 * instead of waiting on the same wedged daemon a second time. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef ADE_VERSION
#error "ADE_VERSION: the package version, defined by setup.py"
#endif

/* engine/basics/caller_env.py (a test compares them) */
static const char *const PER_REQUEST[] = {"ADE_NOW", NULL};
static const char *const AGENT_FOLDERS[] = {
    "HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME",
    "COPILOT_HOME", "QWEN_RUNTIME_DIR", "PI_CODING_AGENT_DIR", "OPENCLAW_STATE_DIR",
    "GOOSE_PATH_ROOT", "VIBE_HOME", "GROK_HOME", "KIRO_HOME", "VSCODE_APPDATA",
    "CRUSH_GLOBAL_DATA", "VSCODE_PORTABLE", "CLINE_DIR", "CLINE_DATA_DIR",
    "CLINE_SESSION_DATA_DIR", NULL};
static const char *const MATCHED[] = {
    "TZ", "ADE_HISTORY_DEPTH", "ADE_LINEAR_API_KEY", "LINEAR_API_KEY", "ADE_LINEAR_API_URL",
    "XDG_CONFIG_HOME", "ADE_SEMANTIC", NULL};
static const char MATCHED_PREFIX[] = "GIT_";
static const char *const SECRETS[] = {"ADE_LINEAR_API_KEY", "LINEAR_API_KEY", NULL};
/* engine/rpc/connection.py: SWITCH's off values, CONNECT_TIMEOUT_S, CALL_TIMEOUT_S */
static const char *const DAEMON_OFF[] = {"off", "0", "no", "false", NULL};
#define CONNECT_TIMEOUT_MS 500
#define CALL_TIMEOUT_MS 60000
#define SUN_PATH_MAX 107 /* engine/rpc/paths.py */

extern char **environ;
static char **g_argv;
static int g_color;

/* ---- the Python `ade` ------------------------------------------------------------------ */

static void exec_python(const char *lost) {
    static char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 8);
    if (n > 0) {
        path[n] = '\0';
        char *slash = strrchr(path, '/');
        if (slash != NULL) {
            strcpy(slash + 1, "ade-py");
            if (lost != NULL) setenv("ADE_DAEMON_LOST", lost, 1);
            execv(path, g_argv);
        }
    }
    fprintf(stderr, "ade: cannot run the Python ade (%s): %s\n", path, strerror(errno));
    exit(127);
}

static int in_list(const char *name, size_t len, const char *const *list) {
    for (; *list != NULL; list++)
        if (strlen(*list) == len && memcmp(*list, name, len) == 0) return 1;
    return 0;
}

/* ---- growing buffers and JSON strings ------------------------------------------------ */

typedef struct { char *data; size_t len, cap; } Buf;

static void put(Buf *b, const void *bytes, size_t n) {
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->data = realloc(b->data, b->cap);
        if (b->data == NULL) exec_python(NULL);
    }
    memcpy(b->data + b->len, bytes, n);
    b->len += n;
    b->data[b->len] = '\0';
}
static void puts_(Buf *b, const char *s) { put(b, s, strlen(s)); }

/* Strict UTF-8 (no overlongs, surrogates or values past U+10FFFF): what Python decodes
 * without surrogateescape. Anything else would reach the daemon as another text. */
static int valid_utf8(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i], need, min, cp;
        if (c < 0x80) { i++; continue; }
        if (c >= 0xC2 && c <= 0xDF) { need = 1; min = 0x80; cp = c & 0x1F; }
        else if (c >= 0xE0 && c <= 0xEF) { need = 2; min = 0x800; cp = c & 0x0F; }
        else if (c >= 0xF0 && c <= 0xF4) { need = 3; min = 0x10000; cp = c & 0x07; }
        else return 0;
        for (unsigned k = 1; k <= need; k++) {
            if (i + k >= n || (s[i + k] & 0xC0) != 0x80) return 0;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
        i += need + 1;
    }
    return 1;
}

static void put_json_string(Buf *b, const char *s, size_t n) {
    if (!valid_utf8((const unsigned char *)s, n)) exec_python(NULL);
    put(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') { put(b, "\\", 1); put(b, &s[i], 1); }
        else if (c < 0x20) { char esc[8]; snprintf(esc, sizeof esc, "\\u%04x", c); puts_(b, esc); }
        else put(b, &s[i], 1);
    }
    put(b, "\"", 1);
}

/* ---- the socket, as engine/rpc/paths.py finds and trusts it ------------------------------ */

/* _spelled_as_pathlib: str(PurePosixPath(path)), in place into out. */
static void spelled(const char *path, Buf *out) {
    out->len = 0;
    puts_(out, "");
    if (path[0] == '/' && path[1] == '/' && path[2] != '/') puts_(out, "//");
    else if (path[0] == '/') puts_(out, "/");
    size_t root = out->len;
    const char *p = path;
    while (*p) {
        while (*p == '/') p++;
        const char *end = strchrnul(p, '/');
        size_t len = (size_t)(end - p);
        if (len > 0 && !(len == 1 && *p == '.')) {
            if (out->len > root) put(out, "/", 1);
            put(out, p, len);
        }
        p = end;
    }
    if (out->len == 0) puts_(out, ".");
}

/* _child: spelled(os.path.join(spelled(folder), name)) */
static void child(const char *folder, const char *name, Buf *out) {
    Buf joined = {0};
    spelled(folder, out);
    puts_(&joined, out->data);
    if (joined.data[joined.len - 1] != '/') puts_(&joined, "/");
    puts_(&joined, name);
    spelled(joined.data, out);
    free(joined.data);
}

static void socket_path(Buf *out) {
    const char *over = getenv("ADE_RUNTIME_DIR"), *xdg = getenv("XDG_RUNTIME_DIR");
    Buf folder = {0};
    if (over != NULL && *over) spelled(over, &folder);
    else if (xdg != NULL && *xdg) child(xdg, "ade", &folder);
    else {
        const char *tmp = getenv("TMPDIR");
        char name[32];
        snprintf(name, sizeof name, "ade-%u", (unsigned)getuid());
        child(tmp != NULL && tmp[0] == '/' ? tmp : "/tmp", name, &folder);
    }
    child(folder.data, "daemon.sock", out);
    free(folder.data);
    if (out->len > SUN_PATH_MAX) exec_python(NULL); /* check_socket_path */
}

/* folder_to_trust and socket_to_trust(private=True): exec Python unless a socket of ours is
 * there in a real, private folder of ours (Python then starts a daemon, or warns). */
static void trust(const char *path) {
    struct stat info;
    Buf folder = {0};
    const char *slash = strrchr(path, '/');
    if (slash == NULL) puts_(&folder, ".");
    else {
        size_t head = (size_t)(slash - path) + 1, all = 0;
        while (all < head && path[all] == '/') all++;
        if (all < head) while (head > 0 && path[head - 1] == '/') head--; /* os.path.dirname */
        put(&folder, path, head);
    }
    if (lstat(folder.data, &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != getuid() ||
        (info.st_mode & 077) != 0)
        exec_python(NULL);
    free(folder.data);
    if (lstat(path, &info) != 0 || !S_ISSOCK(info.st_mode) || info.st_uid != getuid())
        exec_python(NULL);
}

static int connect_daemon(const char *path) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    struct timeval wait = {CONNECT_TIMEOUT_MS / 1000, (CONNECT_TIMEOUT_MS % 1000) * 1000};
    struct ucred peer;
    socklen_t size = sizeof peer;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    memcpy(address.sun_path, path, strlen(path) + 1);
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof wait) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait) != 0 ||
        connect(fd, (struct sockaddr *)&address, sizeof address) != 0 ||
        getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0 || peer.uid != getuid())
        exec_python(NULL); /* check_peer: nothing is sent to another user's process */
    return fd;
}

/* ---- the request --------------------------------------------------------------------- */

static int daemon_off(void) {
    const char *value = getenv("ADE_DAEMON");
    if (value == NULL) return 0;
    for (const char *p = value; *p; p++)
        if ((unsigned char)*p >= 0x80) return 1; /* Python's strip()/lower() know more: ask it */
    while (*value && (isspace((unsigned char)*value) || (*value >= 0x1c && *value <= 0x1f)))
        value++;
    size_t n = strlen(value);
    while (n > 0 && (isspace((unsigned char)value[n - 1]) ||
                     (value[n - 1] >= 0x1c && value[n - 1] <= 0x1f)))
        n--;
    for (const char *const *off = DAEMON_OFF; *off != NULL; off++)
        if (strlen(*off) == n && strncasecmp(*off, value, n) == 0) return 1;
    return 0;
}

/* Python writes its answer in the locale's encoding: only a UTF-8 one gives the same bytes. */
static int locale_not_utf8(void) {
    if (getenv("PYTHONIOENCODING") != NULL) return 1;
    const char *utf8 = getenv("PYTHONUTF8");
    if (utf8 != NULL && strcmp(utf8, "1") != 0) return 1;
    const char *names[] = {"LC_ALL", "LC_CTYPE", "LANG"};
    for (int i = 0; i < 3; i++) {
        const char *value = getenv(names[i]);
        if (value == NULL || *value == '\0') continue;
        if (strcmp(value, "C") == 0 || strcmp(value, "POSIX") == 0) return 0; /* UTF-8 mode */
        const char *dot = strchr(value, '.');
        if (dot == NULL) return 1;
        size_t n = strcspn(dot + 1, "@");
        return !((n == 5 && strncasecmp(dot + 1, "utf-8", 5) == 0) ||
                 (n == 4 && strncasecmp(dot + 1, "utf8", 4) == 0));
    }
    return 0;
}

static void put_context(Buf *b) {
    size_t first = b->len;
    puts_(b, "{");
    for (char **entry = environ; *entry != NULL; entry++) {
        const char *eq = strchr(*entry, '=');
        if (eq == NULL) continue;
        size_t len = (size_t)(eq - *entry);
        int known = in_list(*entry, len, PER_REQUEST) || in_list(*entry, len, AGENT_FOLDERS) ||
                    in_list(*entry, len, MATCHED) || strncmp(*entry, MATCHED_PREFIX, 4) == 0;
        if (!known) continue;
        if (in_list(*entry, len, SECRETS)) exec_python(NULL); /* sent only as a digest */
        for (char **seen = environ; seen < entry; seen++) /* os.environ keeps the first */
            if (strncmp(*seen, *entry, len + 1) == 0) exec_python(NULL);
        if (b->len > first + 1) puts_(b, ",");
        put_json_string(b, *entry, len);
        puts_(b, ":");
        put_json_string(b, eq + 1, strlen(eq + 1));
    }
    puts_(b, "}");
}

static void build_request(Buf *b, int argc) {
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == NULL) exec_python(NULL);
    puts_(b, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"rpc.hello\",\"params\":{}}\n");
    puts_(b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"search.cli\",\"params\":{\"argv\":[");
    for (int i = 2; i < argc; i++) {
        if (i > 2) puts_(b, ",");
        put_json_string(b, g_argv[i], strlen(g_argv[i]));
    }
    puts_(b, "],\"cwd\":");
    put_json_string(b, cwd, strlen(cwd));
    g_color = isatty(1) && getenv("NO_COLOR") == NULL;
    puts_(b, g_color ? ",\"color\":true" : ",\"color\":false");
    puts_(b, ",\"version\":\"" ADE_VERSION "\",\"context\":");
    put_context(b);
    puts_(b, "}}\n");
}

/* ---- the answer: the fixed shapes of rpc.hello's and search.cli's, nothing else ---------- */

typedef struct { const char *p, *end; } Cursor;
typedef struct { int fd; size_t start, len; } Write;

static void ws(Cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n'))
        c->p++;
}
static int eat(Cursor *c, char ch) {
    ws(c);
    if (c->p < c->end && *c->p == ch) { c->p++; return 1; }
    return 0;
}
static int hex4(const char *p, unsigned *out) {
    *out = 0;
    for (int i = 0; i < 4; i++) {
        if (!isxdigit((unsigned char)p[i])) return 0;
        *out = *out * 16 + (unsigned)(isdigit((unsigned char)p[i]) ? p[i] - '0' : (p[i] | 0x20) - 'a' + 10);
    }
    return 1;
}
static void put_code_point(Buf *b, unsigned cp) {
    static const unsigned char lead[] = {0, 0, 0xC0, 0xE0, 0xF0};
    char u[4];
    int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    for (int i = n - 1; i > 0; i--, cp >>= 6) u[i] = (char)(0x80 | (cp & 0x3F));
    u[0] = (char)(lead[n] | cp);
    put(b, u, (size_t)n);
}

/* A JSON string, decoded into out (when given) as UTF-8; a lone surrogate fails (Python's
 * print would raise on it). */
static int string(Cursor *c, Buf *out) {
    if (!eat(c, '"')) return 0;
    if (out != NULL) put(out, "", 0); /* allocated and terminated, "" included */
    while (c->p < c->end && *c->p != '"') {
        unsigned char ch = (unsigned char)*c->p;
        if (ch < 0x20) return 0;
        if (ch != '\\') {
            const char *run = c->p;
            while (c->p < c->end && *c->p != '"' && *c->p != '\\' && (unsigned char)*c->p >= 0x20)
                c->p++;
            if (out != NULL) put(out, run, (size_t)(c->p - run));
            continue;
        }
        if (c->end - c->p < 2) return 0;
        char esc = c->p[1], plain = 0;
        unsigned cp, low;
        c->p += 2;
        switch (esc) {
        case '"': case '\\': case '/': plain = esc; break;
        case 'b': plain = '\b'; break;
        case 'f': plain = '\f'; break;
        case 'n': plain = '\n'; break;
        case 'r': plain = '\r'; break;
        case 't': plain = '\t'; break;
        case 'u':
            if (c->end - c->p < 4 || !hex4(c->p, &cp)) return 0;
            c->p += 4;
            if (cp >= 0xDC00 && cp <= 0xDFFF) return 0;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (c->end - c->p < 6 || c->p[0] != '\\' || c->p[1] != 'u' ||
                    !hex4(c->p + 2, &low) || low < 0xDC00 || low > 0xDFFF)
                    return 0;
                c->p += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            }
            if (out != NULL) put_code_point(out, cp);
            continue;
        default: return 0;
        }
        if (out != NULL) put(out, &plain, 1);
    }
    return c->p++ < c->end;
}

static int integer(Cursor *c, long *out) {
    ws(c);
    char *after;
    errno = 0;
    *out = strtol(c->p, &after, 10);
    if (after == c->p || errno != 0 || (after < c->end && strchr(".eE", *after) != NULL)) return 0;
    c->p = after;
    return 1;
}

/* {"jsonrpc":"2.0","id":N,"result":{…}}: the cursor left at the result's '{' (any error
 * object, or a result that is no object, fails). */
static int to_result(Cursor *c, long id) {
    Buf key = {0};
    long seen = -1;
    int ok = eat(c, '{');
    while (ok) {
        key.len = 0;
        ok = string(c, &key) && eat(c, ':');
        if (!ok) break;
        if (strcmp(key.data, "jsonrpc") == 0) ok = string(c, NULL);
        else if (strcmp(key.data, "id") == 0) ok = integer(c, &seen);
        else if (strcmp(key.data, "result") == 0) {
            ws(c);
            ok = seen == id && c->p < c->end && *c->p == '{';
            break;
        } else ok = 0;
        ok = ok && eat(c, ',');
    }
    free(key.data);
    return ok;
}

/* {"exit":N,"writes":[[fd,"text"],…]} into exit_code, text and writes; a fallback (or any
 * other key) fails. */
static int cli_result(Cursor *c, long *exit_code, Buf *text, Buf *writes) {
    Buf key = {0};
    int ok = eat(c, '{'), have_exit = 0, have_writes = 0;
    do {
        key.len = 0;
        ok = ok && string(c, &key) && eat(c, ':');
        if (ok && strcmp(key.data, "exit") == 0) ok = have_exit = integer(c, exit_code);
        else if (ok && strcmp(key.data, "writes") == 0 && (ok = have_writes = eat(c, '['))) {
            if (eat(c, ']')) continue;
            do {
                long fd;
                Write one = {0, text->len, 0};
                ok = eat(c, '[') && integer(c, &fd) && (fd == 1 || fd == 2) && eat(c, ',') &&
                     string(c, text) && eat(c, ']');
                one.fd = (int)fd;
                one.len = text->len - one.start;
                if (ok) put(writes, &one, sizeof one);
            } while (ok && eat(c, ','));
            ok = ok && eat(c, ']');
        } else ok = 0;
    } while (ok && eat(c, ','));
    free(key.data);
    ok = ok && have_exit && have_writes && *exit_code >= 0 && *exit_code <= 2;
    ok = ok && eat(c, '}') && eat(c, '}');
    ws(c);
    /* Without colour no escape byte (ESC, CSI U+009B): the daemon's output boundary leaves none,
     * so one there is a broken daemon's (tui/daemon_search.py refuses it the same way). */
    return ok && c->p == c->end && valid_utf8((const unsigned char *)text->data, text->len) &&
           (g_color || text->len == 0 || (memchr(text->data, 0x1b, text->len) == NULL &&
                        memmem(text->data, text->len, "\xc2\x9b", 2) == NULL));
}

/* The next answer line from the socket into line (read past it kept in pending); errno-style
 * reason for a daemon lost while we waited, or NULL. */
static const char *read_line(int fd, Buf *pending, Buf *line) {
    static char reason[160];
    char *newline;
    while ((newline = pending->data ? memchr(pending->data, '\n', pending->len) : NULL) == NULL) {
        char chunk[65536];
        ssize_t n = recv(fd, chunk, sizeof chunk, 0);
        if (n > 0) { put(pending, chunk, (size_t)n); continue; }
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) return "connection closed by the daemon";
        if (errno == EAGAIN || errno == EWOULDBLOCK) return "timed out";
        snprintf(reason, sizeof reason, "[Errno %d] %s", errno, strerror(errno));
        return reason;
    }
    size_t len = (size_t)(newline - pending->data);
    line->len = 0;
    put(line, pending->data, len);
    memmove(pending->data, newline + 1, pending->len - len - 1);
    pending->len -= len + 1;
    return NULL;
}

static void write_all(int fd, const char *data, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EPIPE) exit(0); /* the reader went away: quiet, as main_entry */
        if (n < 0) {
            fprintf(stderr, "ade search: %s\n", strerror(errno));
            exit(2);
        }
        data += n;
        len -= (size_t)n;
    }
}

int main(int argc, char **argv) {
    g_argv = argv;
    if (argc < 2 || strcmp(argv[1], "search") != 0 || daemon_off() || locale_not_utf8())
        exec_python(NULL);
    Buf path = {0}, request = {0}, pending = {0}, line = {0}, text = {0}, writes = {0};
    socket_path(&path);
    trust(path.data);
    build_request(&request, argc);
    int fd = connect_daemon(path.data);
    for (size_t sent = 0; sent < request.len;) { /* send_with_greeting */
        ssize_t n = send(fd, request.data + sent, request.len - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) exec_python(NULL);
        sent += (size_t)n;
    }
    Cursor c;
    if (read_line(fd, &pending, &line) != NULL) exec_python(NULL); /* no greeting: as None */
    c = (Cursor){line.data, line.data + line.len};
    if (!to_result(&c, 1)) exec_python(NULL); /* a greeting: a result object (read_greeting) */
    struct timeval wait = {CALL_TIMEOUT_MS / 1000, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    const char *lost = read_line(fd, &pending, &line);
    if (lost != NULL) exec_python(lost);
    close(fd);
    long exit_code = 0;
    c = (Cursor){line.data, line.data + line.len};
    if (!to_result(&c, 2) || !cli_result(&c, &exit_code, &text, &writes)) exec_python(NULL);
    signal(SIGPIPE, SIG_IGN);
    for (size_t i = 0; i < writes.len / sizeof(Write); i++) {
        Write one;
        memcpy(&one, writes.data + i * sizeof one, sizeof one);
        write_all(one.fd, text.data + one.start, one.len);
    }
    return (int)exit_code;
}
