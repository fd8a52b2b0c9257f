"""Deterministic generator of a realistic search corpus (for the index and query benchmarks).

Writes ``benchmarks/.corpus/`` (gitignored): terminal logs with ANSI colours, ``\\r`` progress bars,
stack traces, test runs and git output, and chat JSONL transcripts with prose and fenced code.
Word frequencies follow a Zipf law over a fixed pseudo-English vocabulary, so there are very common
words, a long tail of rare ones, and identifiers (``readTimeoutError``, ``connect_timeout``,
``foo.py:42``, short shas, ``ABC-123``) as people really type them. Same seed, same bytes.

Usage: ``python -m benchmarks.corpus [--mb 330]``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import shutil
from bisect import bisect
from pathlib import Path

CORPUS_DIR = Path(__file__).parent / ".corpus"
SEED = 20260601
COMMON = [
    "the",
    "of",
    "and",
    "to",
    "a",
    "in",
    "is",
    "it",
    "you",
    "that",
    "was",
    "for",
    "on",
    "are",
    "with",
    "as",
    "be",
    "at",
    "this",
    "have",
    "from",
    "or",
    "one",
    "had",
    "by",
    "but",
    "not",
    "what",
    "all",
    "were",
    "we",
    "when",
    "your",
    "can",
    "said",
    "there",
    "use",
    "an",
    "each",
    "which",
    "she",
    "do",
    "how",
    "their",
    "if",
    "will",
    "up",
    "other",
    "about",
    "out",
    "many",
    "then",
    "them",
    "these",
    "so",
    "some",
    "her",
    "would",
    "make",
    "like",
    "him",
    "into",
    "time",
    "has",
    "look",
    "two",
    "more",
    "write",
    "go",
    "see",
    "number",
    "no",
    "way",
    "could",
    "people",
    "my",
    "than",
    "first",
    "water",
    "been",
    "call",
    "who",
    "its",
    "now",
    "find",
    "long",
    "down",
    "day",
    "did",
    "get",
    "come",
    "made",
    "may",
    "part",
    "error",
    "test",
    "build",
    "fix",
    "run",
    "file",
    "value",
    "request",
]
SYLLABLES = [
    a + b for a in "bcdfghklmnprstvwz" for b in ("a", "e", "i", "o", "u", "ar", "en", "or")
]
EXCEPTIONS = ("TypeError", "ValueError", "ReadTimeoutError", "KeyError", "ConnectionResetError",
              "AssertionError", "RuntimeError", "PermissionError")  # fmt: skip
SUFFIXES = ("Error", "Timeout", "Handler", "Manager", "Client", "Config", "State", "Request")


class Vocabulary:
    """A Zipf-weighted word sampler plus identifier makers."""

    def __init__(self, rng: random.Random, size: int = 40_000) -> None:
        words = list(dict.fromkeys(COMMON))
        while len(words) < size:
            w = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))
            if w not in words[-50:]:
                words.append(w)
        self.words = list(dict.fromkeys(words))
        self.cum = list(itertools.accumulate(1.0 / (r + 1) ** 1.05 for r in range(len(self.words))))
        self.rng = rng

    def sample(self, k: int) -> list[str]:
        total = self.cum[-1]
        r = self.rng.random
        return [self.words[bisect(self.cum, r() * total)] for _ in range(k)]

    def sentence(self, lo: int = 6, hi: int = 18) -> str:
        words = self.sample(self.rng.randint(lo, hi))
        return " ".join(words).capitalize() + "."

    def camel(self) -> str:
        a, b = self.sample(2)
        return a + b.capitalize() + self.rng.choice(SUFFIXES)

    def snake(self) -> str:
        return "_".join(self.sample(self.rng.randint(2, 3)))

    def path(self) -> str:
        return f"src/{self.sample(1)[0]}/{self.snake()}.py:{self.rng.randint(1, 900)}"

    def sha(self) -> str:
        return f"{self.rng.getrandbits(160):040x}"


def _terminal_block(v: Vocabulary) -> str:
    rng = v.rng
    kind = rng.random()
    if kind < 0.25:
        return "".join(
            f"\x1b[32mPASSED\x1b[0m tests/test_{v.snake()}.py::test_{v.snake()} "
            f"\x1b[2m[{rng.randint(1, 99)}%]\x1b[0m\n"
            for _ in range(rng.randint(3, 12))
        )
    if kind < 0.40:
        name = v.sample(1)[0]
        bars = "".join(
            f"\rDownloading {name} [{'=' * i}{' ' * (20 - i)}] {i * 5}%" for i in range(21)
        )
        return bars + "\n"
    if kind < 0.55:
        frames = "".join(
            f'  File "{v.path().split(":")[0]}", line {rng.randint(1, 900)}, in {v.camel()}\n'
            f"    {v.snake()} = {v.camel()}({v.snake()})\n"
            for _ in range(rng.randint(2, 6))
        )
        exc = rng.choice(EXCEPTIONS)
        return f"Traceback (most recent call last):\n{frames}\x1b[31m{exc}\x1b[0m: {v.sentence()}\n"
    if kind < 0.65:
        return (
            f"\x1b[33mcommit {v.sha()}\x1b[0m\nAuthor: {v.sample(1)[0]} <dev@example.com>\n\n"
            f"    {v.sentence()} (ABC-{rng.randint(1, 999)})\n\n"
        )
    if kind < 0.75:
        return f"$ {v.sample(1)[0]} --{v.snake()} {v.path()}\n{v.sentence()}\n"
    return "".join(v.sentence() + "\n" for _ in range(rng.randint(1, 5)))


def _code_block(v: Vocabulary) -> str:
    rng = v.rng
    lines = [f"def {v.snake()}({v.snake()}, timeout={rng.randint(1, 60)}):"]
    for _ in range(rng.randint(2, 10)):
        lines.append(f"    {v.snake()} = {v.camel()}({v.snake()}, {v.snake()})")
    lines.append(f"    raise {rng.choice(EXCEPTIONS)}(f'{v.sentence(3, 6)}')")
    return "```python\n" + "\n".join(lines) + "\n```"


def _chat_text(v: Vocabulary) -> str:
    parts = [" ".join(v.sentence() for _ in range(v.rng.randint(1, 6)))]
    if v.rng.random() < 0.4:
        parts.append(_code_block(v))
    if v.rng.random() < 0.3:
        parts.append(f"See {v.path()} and commit {v.sha()[:7]} for ABC-{v.rng.randint(1, 999)}.")
    return "\n\n".join(parts)


def write_terminal(path: Path, v: Vocabulary, target: int) -> int:
    chunks, size = [], 0
    while size < target:
        block = _terminal_block(v).encode("utf-8")
        chunks.append(block)
        size += len(block)
    path.write_bytes(b"".join(chunks))
    return size


def write_chat(path: Path, v: Vocabulary, target: int) -> int:
    lines, size, seq = [], 0, 0
    while size < target:
        seq += 1
        kind = "user_message" if seq % 3 == 1 else "assistant_message"
        event = {"seq": seq, "ts": f"2026-05-{1 + seq % 28:02d}T10:00:00Z", "type": kind,
                 "id": f"m{seq}", "text": _chat_text(v)}  # fmt: skip
        if kind == "user_message":
            event["status"] = "accepted"
        line = json.dumps(event) + "\n"
        lines.append(line)
        size += len(line.encode("utf-8"))
    path.write_text("".join(lines), encoding="utf-8")
    return size


def generate(total_mb: int = 330, out: Path = CORPUS_DIR) -> Path:
    """Write the corpus (60% terminal, 40% chat) unless the same one is already there."""
    stamp = out / "corpus.json"
    spec = {"seed": SEED, "mb": total_mb, "version": 1}
    if stamp.exists() and json.loads(stamp.read_text()) == spec:
        return out
    rng = random.Random(SEED)
    v = Vocabulary(rng)
    for folder in ("terminals", "chats"):
        # A corpus of another size left here would keep its extra files: a smaller size
        # written over a bigger one read as the bigger one (5 MB gave 32,573 documents).
        shutil.rmtree(out / folder, ignore_errors=True)
        (out / folder).mkdir(parents=True)
    term_total, chat_total = total_mb * 6 // 10 << 20, total_mb * 4 // 10 << 20
    for i in range(term_total // (512 << 10)):
        write_terminal(out / "terminals" / f"t{i:04d}.log", v, 512 << 10)
    for i in range(chat_total // (256 << 10)):
        write_chat(out / "chats" / f"c{i:04d}.jsonl", v, 256 << 10)
    (out / "vocabulary.json").write_text(json.dumps(v.words[:40_000]))
    stamp.write_text(json.dumps(spec))
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=330)
    print(generate(parser.parse_args().mb))
