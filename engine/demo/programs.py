"""Seeded programs whose terminal output the demo captures through a PTY.

Run as a script (``python programs.py MODE SEED``), never imported by the builder: the bytes in
the demo are what this process really wrote to a terminal. Output depends only on MODE and SEED
(no clock, no paths, no environment), so every capture is identical.
"""

from __future__ import annotations

import random
import sys

RESET, BOLD, RED, GREEN, YELLOW, MAGENTA, CYAN = (
    "\x1b[0m",
    "\x1b[1m",
    "\x1b[31m",
    "\x1b[32m",
    "\x1b[33m",
    "\x1b[35m",
    "\x1b[36m",
)
BUILD_LOG_TARGET = 2_200_000
"""Bytes of build output to write (the brief asks for >= 2 MB; the PTY adds a \\r per line)."""

PACKAGES = (
    "uvloop-0.19.0",
    "httptools-0.6.1",
    "cryptography-42.0.5",
    "pydantic_core-2.16.3",
    "psycopg-c-3.1.18",
    "orjson-3.10.0",
    "multidict-6.0.5",
    "yarl-1.9.4",
    "frozenlist-1.4.1",
)
"""Source distributions the fake wheel build compiles, in order."""


def out(text: str) -> None:
    sys.stdout.buffer.write(text.encode("utf-8"))


def progress(rng: random.Random) -> None:
    """A tqdm-style backfill: one line rewritten with ``\\r`` per update."""
    out("Backfilling ledger_entries from payments (batch size 500)\n")
    for phase, total in (("payments", 4200), ("refunds", 1300), ("webhook events", 2750)):
        done, rate = 0, 160.0 + rng.uniform(0, 80)
        while done < total:
            done = min(total, done + rng.randint(40, 160))
            pct = done * 100 // total
            filled = pct * 30 // 100
            bar = "█" * filled + " " * (30 - filled)
            rate = max(40.0, rate + rng.uniform(-6, 6))
            out(f"\r{phase:>15}: {pct:3d}%|{bar}| {done}/{total} [{rate:6.1f} rows/s]")
            sys.stdout.flush()
        out(f"\n{GREEN}✔{RESET} {phase}: {total} rows copied\n")
    out(f"{BOLD}done{RESET}: 8250 rows, 0 conflicts, 3 skipped (already migrated)\n")


def _compile_line(rng: random.Random, package: str, index: int) -> str:
    name = package.rsplit("-", 1)[0].replace("-", "_")
    source = f"src/{name}/{rng.choice(('core', 'parser', 'loop', 'buffer', 'codec'))}_{index}.c"
    flags = " ".join(
        rng.sample(
            [
                "-O2",
                "-g",
                "-fPIC",
                "-Wall",
                "-Wno-unused-result",
                "-DNDEBUG",
                "-fwrapv",
                "-fno-strict-aliasing",
            ],
            6,
        )
    )
    return (
        f"gcc -pthread {flags} -I/usr/include/python3.11 -Ibuild/{name}/include "
        f"-c {source} -o build/temp.linux-x86_64-cpython-311/{source[:-2]}.o\n"
    )


def _warning(rng: random.Random, package: str) -> str:
    name = package.rsplit("-", 1)[0].replace("-", "_")
    line, col = rng.randint(10, 4000), rng.randint(1, 60)
    kind = rng.choice(
        (
            ("unused variable 'rc'", "-Wunused-variable"),
            ("comparison of integer expressions of different signedness", "-Wsign-compare"),
            ("'PyObject_AsCharBuffer' is deprecated", "-Wdeprecated-declarations"),
        )
    )
    return (
        f"{BOLD}src/{name}/core.c:{line}:{col}:{RESET} {BOLD}{MAGENTA}warning: {RESET}"
        f"{kind[0]} [{BOLD}{MAGENTA}{kind[1]}{RESET}]\n"
    )


def _error_block() -> str:
    return (
        f"{BOLD}src/psycopg_c/pq/pgconn.c:1287:12:{RESET} {BOLD}{RED}error: {RESET}"
        "'PQconnectionUsedGSSAPI' undeclared (first use in this function)\n"
        " 1287 |     return PQconnectionUsedGSSAPI(self->pgconn_ptr);\n"
        f"      |            {BOLD}{RED}^~~~~~~~~~~~~~~~~~~~~~{RESET}\n"
        f"{RED}error: command '/usr/bin/gcc' failed with exit code 1{RESET}\n"
        f"  {RED}ERROR: Failed building wheel for psycopg-c{RESET} "
        "(libpq-dev 13 is too old: PQconnectionUsedGSSAPI needs libpq >= 16)\n"
        f"{YELLOW}WARNING: falling back to psycopg[binary] for the wheelhouse{RESET}\n"
    )


def buildlog(rng: random.Random) -> None:
    """A long wheel build: compiler lines, coloured warnings, one error near the middle."""
    written, index, errored = 0, 0, False
    per_package = BUILD_LOG_TARGET // len(PACKAGES)
    for number, package in enumerate(PACKAGES):
        head = f"{CYAN}Building wheel for {package} (pyproject.toml){RESET}\n"
        out(head)
        budget = written + per_package
        while written < budget:
            index += 1
            line = _compile_line(rng, package, index)
            if rng.random() < 0.04:
                line += _warning(rng, package)
            if not errored and number == len(PACKAGES) // 2 and written > budget - per_package // 2:
                line += _error_block()
                errored = True
            out(line)
            written += len(line)
        if number != len(PACKAGES) // 2:
            out(
                f"{GREEN}  Created wheel for {package.split('-')[0]}{RESET}: "
                f"filename={package}-cp311-cp311-linux_x86_64.whl\n"
            )
    out(f"{BOLD}Successfully built {len(PACKAGES) - 1} wheels; 1 failed (psycopg-c){RESET}\n")


def devserver(rng: random.Random) -> None:
    """uvicorn with --reload, still running: the last line is not terminated yet."""
    out(f"{GREEN}INFO{RESET}:     Will watch for changes in these directories: ['.']\n")
    out(
        f"{GREEN}INFO{RESET}:     Uvicorn running on {BOLD}http://127.0.0.1:8080{RESET} "
        "(Press CTRL+C to quit)\n"
    )
    out(f"{GREEN}INFO{RESET}:     Started reloader process [31337] using WatchFiles\n")
    routes = (
        ("POST", "/payments", 201),
        ("GET", "/payments/pay_3f9a1c", 200),
        ("POST", "/refunds", 201),
        ("GET", "/healthz", 200),
        ("POST", "/payments", 502),
    )
    for n in range(60):
        method, path, status = rng.choice(routes)
        colour = GREEN if status < 400 else RED
        port = 50000 + rng.randint(0, 9999)
        out(
            f'{GREEN}INFO{RESET}:     127.0.0.1:{port} - "{BOLD}{method} {path} HTTP/1.1{RESET}" '
            f"{colour}{status}{RESET}\n"
        )
        if status == 502:
            out(
                f"{YELLOW}WARNING{RESET}:  gateway read timeout on /v1/charges "
                "(ReadTimeoutError: Read timed out. (read timeout=10.0))\n"
            )
        if n == 30:
            out(
                f"{YELLOW}WARNING{RESET}:  WatchFiles detected changes in "
                "'payments_api/gateway.py'. Reloading...\n"
            )
    out(f'{GREEN}INFO{RESET}:     127.0.0.1:51890 - "{BOLD}POST /payments HTTP/1.1{RESET}" ')


def screens(rng: random.Random) -> None:
    """An OSC 8 link, a pager on the alternate screen, then a binary file cat'ed by mistake."""
    url = "https://github.com/acme/payments-api/pull/41"
    out(f"{BOLD}ABC-123: exponential backoff for gateway retries{RESET} acme/payments-api#41\n")
    out("Open • dana wants to merge 6 commits into main from feature/ABC-123-retry-backoff\n")
    out(f"View this pull request on GitHub: \x1b]8;;{url}\x1b\\{url}\x1b]8;;\x1b\\\n")
    out("\x1b[?1049h\x1b[22;0;0t\x1b[1;40r\x1b[H\x1b[2J")
    for number in range(1, 39):
        out(f"\x1b[{number};1H{number:4d} retry policy notes, page 1 line {number}")
    out("\x1b[40;1H\x1b[7mdocs/adr/0003-retry-policy.md (END)\x1b[27m\x1b[K")
    out("\x1b[40;1H\x1b[K\x1b[r\x1b[?1049l\x1b[23;0;0t")
    sys.stdout.flush()
    out("$ cat tests/fixtures/processor_event.bin\n")
    sys.stdout.buffer.write(b"PRCv2\x00\x01\x02\xff\xfe\xc3\x28 card=\xe2\x82 amount=\xc0\xaf")
    sys.stdout.buffer.write(bytes(rng.randrange(128, 256) for _ in range(48)))
    out("\n$ xxd tests/fixtures/processor_event.bin | head -1\n")
    out("00000000: 5052 4376 3200 0102 fffe c328 2063 6172  PRCv2......( car\n")


MODES = {"progress": progress, "buildlog": buildlog, "devserver": devserver, "screens": screens}
"""Mode name → program."""


def main(argv: list[str]) -> int:
    mode, seed = argv[1], int(argv[2])
    MODES[mode](random.Random(seed))
    sys.stdout.flush()
    return 1 if mode == "buildlog" else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
