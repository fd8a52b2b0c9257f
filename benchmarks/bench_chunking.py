"""Terminal chunking throughput, snippet cost by chunk size, and redaction throughput.

Times are CPU time of this process (the machine is shared). Self-contained: generates a
realistic ANSI log (colours, cursor hide/show, \\r progress bars, OSC titles and hyperlinks, an
occasional alternate-screen session, UTF-8 text) and measures.

    python -m benchmarks.bench_chunking [--mb 50]
"""

from __future__ import annotations

import argparse
import random
import time
from functools import partial

import apsw

from benchmarks.timing import timed
from engine.redaction import redact_secrets
from engine.terminal.chunking import ChunkerState, TerminalChunk, chunk_terminal_bytes

SLICE = 4 * 1024 * 1024
"""The ingestion reads at most 4 MiB a pass; chunk in the same slices."""


def ansi_log(size: int, seed: int = 7) -> bytes:
    """About ``size`` bytes of terminal output as a build/test session produces it."""
    rng = random.Random(seed)
    words = [
        "compiling",
        "building",
        "test",
        "passed",
        "failed",
        "warning",
        "error",
        "module",
        "src",
        "lib",
        "café",
        "✓",
        "→",
        "done",
    ]
    out: list[bytes] = []
    total = 0
    while total < size:
        kind = rng.random()
        if kind < 0.55:
            colour = rng.choice([b"31", b"32", b"33", b"1;34", b"0"])
            text = " ".join(rng.choice(words) for _ in range(rng.randint(4, 14))).encode()
            line = (
                b"\x1b[" + colour + b"m" + text + b"\x1b[0m " + str(rng.random()).encode() + b"\r\n"
            )
        elif kind < 0.85:
            line = b"[INFO] " + " ".join(rng.choice(words) for _ in range(10)).encode() + b"\n"
        elif kind < 0.95:
            frames = b"".join(
                b"\rDownloading %3d%% [%s]" % (p, b"#" * (p // 5)) for p in range(0, 101, 7)
            )
            line = b"\x1b[?25l" + frames + b"\x1b[K\x1b[?25h\n"
        elif kind < 0.99:
            line = b"\x1b]0;~/proj\x07\x1b]8;;https://ci.example/run/1\x1b\\CI run\x1b]8;;\x1b\\ $ make\n"
        else:
            screen = b"\x1b[H\x1b[2J" + b"~\r\n" * 40
            line = b"$ vim notes\n\x1b[?1049h" + screen + b"\x1b[?1049l$ ls\n"
        out.append(line)
        total += len(line)
    return b"".join(out)


def bench_chunking(data: bytes) -> None:
    """Chunk ``data`` in 4 MiB slices the way the ingestion does; print MB/s."""

    def chunk_all() -> tuple[int, int]:
        cursor, state, chunks, chars = 0, ChunkerState(), 0, 0
        while cursor < len(data):
            piece = data[cursor : cursor + SLICE]
            force = cursor + SLICE >= len(data)
            result = chunk_terminal_bytes(piece, cursor, force=force, state=state)
            cursor, state = cursor + result.consumed, result.state
            chunks += len(result.chunks)
            chars += sum(len(chunk.text) for chunk in result.chunks)
        return chunks, chars

    elapsed, (chunks, chars) = timed(chunk_all, clock=time.process_time)
    print(
        f"chunking: {len(data) / 1e6:.1f} MB raw -> {chunks} chunks, {chars / 1e6:.1f} M chars "
        f"in {elapsed:.2f} s = {len(data) / 1e6 / elapsed:.1f} MB/s"
    )


SNIPPET_QUERY = (
    "SELECT snippet(docs, 0, char(1), char(2), '…', 16) FROM docs "
    "WHERE docs MATCH 'failed' ORDER BY rank LIMIT 50"
)
QUERY_REPEATS = 5


def _insert(connection: apsw.Connection, chunks: list[TerminalChunk]) -> None:
    with connection:
        connection.executemany("INSERT INTO docs(body) VALUES (?)", ((c.text,) for c in chunks))


def _snippet_hits(connection: apsw.Connection) -> int:
    """Run the snippet query ``QUERY_REPEATS`` times; the number of hits it returns."""
    return [len(list(connection.execute(SNIPPET_QUERY))) for _ in range(QUERY_REPEATS)][-1]


def bench_snippet_cost(data: bytes) -> None:
    """Per chunk size: FTS5 insert MB/s and snippet() cost per hit on the same text."""
    text_source = data[: 8 * 1024 * 1024]
    print("target_chars  chunks  insert MB/s  query+snippet ms/hit  ms for 50 hits")
    for target in (1024, 2048, 4096, 8192, 16384):
        chunks = chunk_terminal_bytes(text_source, 0, force=True, target_chars=target).chunks
        connection = apsw.Connection(":memory:")
        connection.execute("CREATE VIRTUAL TABLE docs USING fts5(body)")
        size = sum(len(c.text) for c in chunks)
        inserting, _ = timed(partial(_insert, connection, chunks), clock=time.process_time)
        insert = size / 1e6 / inserting
        took, hits = timed(partial(_snippet_hits, connection), clock=time.process_time)
        per_query = took / QUERY_REPEATS * 1000
        print(
            f"{target:>12}  {len(chunks):>6}  {insert:>11.1f}  {per_query / hits:>20.3f}  {per_query:>14.1f}"
        )


def bench_redaction(size: int = 10_000_000) -> None:
    """Redaction MB/s on mixed text with a secret every ~50 lines."""
    rng = random.Random(3)
    words = [
        "the",
        "quick",
        "brown",
        "fox",
        "error",
        "warning",
        "commit",
        "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f",
        "123e4567-e89b-12d3-a456-426614174000",
        "src/main.py:42",
        "https://example.com/p?x=1",
        "INFO",
        "DEBUG",
        "token:",
        "expected",
        "password",
        "required",
        "api",
        "sk-learn",
    ]
    secret = (
        "GITHUB_TOKEN=ghp_" + "a1B2" * 9 + " password=hunter2 Authorization: Bearer abcdef123456"
    )
    lines: list[str] = []
    total = 0
    while total < size:
        line = secret if rng.random() < 0.02 else " ".join(rng.choice(words) for _ in range(8))
        lines.append(line)
        total += len(line) + 1
    text = "\n".join(lines)[:size]
    elapsed, redacted = timed(lambda: redact_secrets(text), clock=time.process_time)
    print(
        f"redaction: {len(text) / 1e6:.1f} MB in {elapsed:.2f} s = {len(text) / 1e6 / elapsed:.1f} MB/s, "
        f"{redacted.count('[REDACTED:')} markers"
    )


def bench_redaction_per_chunk(mb: int = 16, runs: int = 5) -> None:
    """Redaction as ingestion runs it: once per ~4 KiB chunk of a generated ANSI log, CPU time,
    best of ``runs`` (the prefilter decides per chunk which rules run)."""
    from benchmarks.bench_ingest import _chunk_texts

    texts = _chunk_texts(ansi_log(mb * 1024 * 1024))
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        for text in texts:
            redact_secrets(text)
        best = min(best, time.process_time() - start)
    size = sum(map(len, texts)) / 1e6
    print(f"redaction per chunk: {len(texts)} chunks, {size:.1f} MB, best of {runs} {best:.3f} s")


def main() -> None:
    """Run the three measurements."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=50, help="size of the generated log in MB")
    args = parser.parse_args()
    data = ansi_log(int(args.mb * 1e6))
    bench_chunking(data)
    bench_snippet_cost(data)
    bench_redaction()


if __name__ == "__main__":
    main()
