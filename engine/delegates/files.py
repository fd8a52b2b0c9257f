"""Files of one lane (its worktree), asked at query time (DESIGN §5): path matches and line matches.

Both halves are git itself: ``git ls-files`` lists tracked and untracked-but-not-ignored files
(so ``.gitignore`` is honoured exactly as the user expects), and ``git grep`` finds lines — it is
multi-threaded, skips binaries (``-I``) and is the baseline the benchmark compares against, so
wrapping it rather than re-implementing a scanner keeps us within a few percent of it. The two
processes run concurrently. Every user-derived argument follows ``-e`` or ``--``, so a term that
starts with ``-`` is never read as an option.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec

from engine.delegates.definitions import definition_source
from engine.delegates.git_process import (
    GIT_TIMEOUT_SECONDS,
    FileLineHit,
    FileSearchFailed,
    GrepTimedOut,
    Streamed,
    first_line,
    run_git,
)
from engine.delegates.listing_memo import memoised_listing
from engine.query.match import LineFilter

__all__ = ["GIT_TIMEOUT_SECONDS", "FileLineHit", "FileSearchFailed", "GrepTimedOut"]

MAX_LINE_HITS = 100_000
"""Line matches kept per query, every one reachable by paging (git.git's ``strbuf_addf`` has
1,165, its ``the`` ~170,000). Past it the answer says so (``resultsTruncated``, ``total`` a lower
bound and a warning naming how to narrow) and, for an identifier, a second pass looks for
definition lines only, so the defining file is not lost to the cap. No per-file cap: ranking
(definitions and files named like the term first) keeps a file full of mentions from crowding
out the one that matters. A candidate is cheap (its snippet is made only when its page is
shown), so the cap bounds memory, not the usual answer."""

MAX_DEFINITION_HITS = 200
"""Definition lines added by the second pass when the line cap was hit."""

MAX_LINE_CHARS = 400
"""Minified files have megabyte lines: a line is matched whole, but its snippet is a window of
at most this many characters around the match (``engine.query.line_window``)."""

ADE_STATE = ".ade"
"""The environment's state folder: raw transcripts and session records, never a file hit."""

_EXCLUDE_ADE = ":(exclude,glob)**/.ade/**"
"""Given to a grep of untracked files (their raw logs could be large); tracked ones are
dropped as they stream (``is_ade_state``), which costs nothing, where the glob costs git a
match per path (~15% of a grep on 200,000 files)."""
"""Pathspec keeping every ``.ade/`` folder (the project's and a nested one) out of ``git grep``
whatever the ignore rules say: a repository that does not ignore it would serve raw terminal
logs (escapes, secrets, every terminal hit twice) as file hits."""


class FileMatches(msgspec.Struct, frozen=True):
    """What the file search found: paths holding a term, line hits, and whether lines were cut."""

    paths: list[str]
    lines: list[FileLineHit]
    truncated: bool
    """More lines matched than ``MAX_LINE_HITS``: not every match is in ``lines``."""
    notes: tuple[str, ...] = ()
    """Warnings of the search (untracked files too large to read)."""
    cut_short: bool = False
    """git grep ran out of time: ``lines`` are those found by then (a note says so)."""


def is_ade_state(path: str) -> bool:
    """Whether a work-tree path lies in an ``.ade/`` folder (at the root or nested)."""
    return f"/{ADE_STATE}/" in f"/{path}"


def lane_listing(root: Path) -> tuple[Sequence[str], Sequence[str]]:
    """:func:`list_tracked_untracked`, from this process's memo while the lane's index, its
    directories and its ignore rules are unchanged (see :mod:`engine.delegates.listing_memo`)."""

    def list_now() -> tuple[tuple[str, ...], tuple[str, ...]]:
        tracked, untracked = list_tracked_untracked(root)
        return tuple(tracked), tuple(untracked)

    return memoised_listing(root, list_now, run_git)


def list_tracked_untracked(root: Path) -> tuple[list[str], list[str]]:
    """``(tracked, untracked-not-ignored)`` files of the work tree at ``root``, from one
    ``git ls-files -t`` (its ``?`` tag marks an untracked file)."""
    done = run_git(root, "ls-files", "-z", "-t", "--cached", "--others", "--exclude-standard")
    if done.returncode != 0:
        raise FileSearchFailed(first_line(done.stderr) or f"git ls-files failed in {root}")
    tracked: dict[str, None] = {}
    untracked: dict[str, None] = {}
    for entry in done.stdout.split(b"\0"):
        if len(entry) > 2:
            name = os.fsdecode(entry[2:])  # any byte: undecodable ones as surrogates
            if not is_ade_state(name):
                (untracked if entry[:1] == b"?" else tracked)[name] = None
    return list(tracked), list(untracked)


def grep_lane_lines(
    root: Path,
    terms: Sequence[str] | LineFilter,
    *,
    untracked: bool = True,
    limit: int = MAX_LINE_HITS,
    keep: Callable[[str, str], bool] | None = None,
    paths: Sequence[str] | None = None,
) -> list[FileLineHit]:
    """Lines the query's ``LineFilter`` admits (a word list: lines holding every word, case- and
    accent-insensitively; a word may also be in the file's path, so a folder name narrows) in
    the lane's files (``untracked=False``: tracked files only), at most ``limit``, in git's
    order (path, then line). ``.ade/`` never.

    git grep is asked for the filter's lead group (its most selective needles) as a regex that
    matches every case and accent of them (``cafe`` finds ``Café``; git runs in the C locale,
    so accented letters are byte alternations), where words start when git has PCRE
    (``engine.query.match.grep_term_regex``); the other groups are checked here on
    the returned lines, which is exact and cheap because few lines survive the first.
    Its output is read as it streams and the process is stopped once ``limit`` lines qualify
    (``keep``, when given, decides exactly which do): for a common word that is a small fraction
    of the work a full grep does. ``paths`` limits the grep to those files. A work tree with
    submodules is searched into them (``--recurse-submodules``; not with ``untracked``, which
    git does not combine with it).
    """
    wanted = line_filter(terms)
    if not wanted.groups:
        return []
    recurse = not untracked and (root / ".gitmodules").is_file()
    spec = [f":(literal){p}" for p in paths] if paths is not None else []

    def args(dialect: str, pattern: str) -> tuple[str, ...]:
        return (
            "grep", *(("--untracked",) if untracked else ()),
            *(("--recurse-submodules",) if recurse else ()), "-I", dialect, "-n", "-z",
            "--no-color", "-e", pattern, "--", *((_EXCLUDE_ADE,) if untracked else ()), *spec,
        )  # fmt: skip

    return _grep_either(root, wanted.grep_dialects(), args, wanted, limit, keep)


def _grep_either(
    root: Path,
    dialects: list[tuple[str, str]],
    args: Callable[[str, str], tuple[str, ...]],
    wanted: LineFilter | None,
    limit: int,
    keep: Callable[[str, str], bool] | None = None,
) -> list[FileLineHit]:
    """``_grep`` in the first of ``dialects`` this git takes: ``-P`` (PCRE), then its ``-E``
    twin, which admits the same lines or more. A ``-P`` refused where ``-E`` then worked is a
    git built without PCRE: this process asks ``-E`` alone from then on. A timeout is not a
    refusal; the last dialect's failure is the caller's."""
    global _without_pcre
    if _without_pcre:
        dialects = dialects[-1:]
    refused = False
    for number, (dialect, pattern) in enumerate(dialects, 1):
        try:
            hits = _grep(root, args(dialect, pattern), wanted, limit, keep)
        except GrepTimedOut:
            raise
        except FileSearchFailed:
            if number == len(dialects):
                raise
            refused = True
            continue
        if refused:
            _without_pcre = True
        return hits
    return []


_without_pcre = False
"""Set when this process's git refused ``grep -P`` (built without PCRE): ``-E`` from then on."""


def grep_definitions(root: Path, words: list[str]) -> list[FileLineHit]:
    """Tracked lines that define one of ``words`` (``def x``, ``#define x``, ``x =``, a C
    function at column 0…; see :func:`engine.delegates.definitions.is_definition`), at most ``MAX_DEFINITION_HITS``.

    Perl-compatible (JIT) when this git has it, 2-3x faster than the POSIX twin it falls back
    to; still a walk of the whole tree, so callers ask only for identifiers (see
    :func:`looks_like_identifier`).
    """
    if not words:
        return []
    dialects = [("-P", definition_source(words, ere=False)),
                ("-E", definition_source(words, ere=True))]  # fmt: skip

    def args(dialect: str, source: str) -> tuple[str, ...]:
        return ("grep", "-I", "-i", dialect, "-n", "-z", "--no-color", "-e", source, "--",
                _EXCLUDE_ADE)  # fmt: skip

    try:
        return _grep_either(root, dialects, args, None, MAX_DEFINITION_HITS)
    except GrepTimedOut as err:  # the definitions found by then still rank first
        return err.hits
    except FileSearchFailed:
        return []


_IDENTIFIER_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def looks_like_identifier(word: str) -> bool:
    """Whether ``word`` reads as a name a program defines (``strbuf_addf``, ``parseQuery``,
    ``MAX_LINE``), not a word of prose (``and``, ``retry``) that no definition pass can help."""
    if len(word) < 4 or not _IDENTIFIER_RE.fullmatch(word):
        return False
    return "_" in word or any(ch.isdigit() for ch in word) or word[1:] != word[1:].lower()


def _grep(
    root: Path,
    args: tuple[str, ...],
    wanted: LineFilter | None,
    limit: int,
    keep: Callable[[str, str], bool] | None = None,
) -> list[FileLineHit]:
    hits: list[FileLineHit] = []
    paths: dict[bytes, str | None] = {}  # a file's lines come together: its name decoded once
    append, record = hits.append, _RECORD_RE.match
    try:
        with Streamed(root, args) as proc:
            buffer, full = b"", False
            for chunk in proc.chunks():
                buffer = buffer + chunk if buffer else chunk
                start = 0
                # One compiled match a record (~1/3 less than three ``find``s and a generator's
                # yield: git.git's ``the`` is ~100,000 records).
                while (found := record(buffer, start)) is not None:
                    start = found.end()
                    raw_path, number, raw_text = found.groups()
                    if (path := paths.get(raw_path, "")) == "":
                        path = paths[raw_path] = _work_tree_path(raw_path)
                    if path is None or not number.isdigit():  # in .ade/, or not a line
                        continue
                    text = raw_text.decode("utf-8", "replace")
                    if keep is not None:
                        if not keep(path, text):
                            continue
                    elif wanted is not None and not wanted.admits(f"{path}\n{text}"):
                        continue
                    append(FileLineHit(path, int(number), text))
                    if len(hits) >= limit:
                        full = True
                        break
                if full:
                    proc.stop()
                    break
                buffer = buffer[start:]
    except GrepTimedOut as err:
        raise GrepTimedOut(str(err), hits) from None
    if not proc.stopped and proc.returncode not in (0, 1):  # 1 means no match
        raise FileSearchFailed(proc.error() or f"git grep failed in {root}")
    return hits


def line_filter(terms: Sequence[str] | LineFilter) -> LineFilter:
    """``terms`` as a ``LineFilter`` (a word list: every word required, its folded tokens)."""
    return terms if isinstance(terms, LineFilter) else LineFilter.of_words(terms)


_RECORD_RE = re.compile(rb"([^\0]*)\0([^\0]*)\0([^\n]*)\n")
"""``(path, line number, text)`` of one record of git grep ``-n -z`` output: ``path NUL n NUL
text LF``. A path may hold any byte but NUL, a newline included, so records are not split at
newlines: the fields are NUL-separated, and only the text (which never holds a newline) ends at
one. An incomplete record at a chunk's end does not match: it waits for the next chunk."""


def _work_tree_path(raw_path: bytes) -> str | None:
    """The exact name (undecodable bytes as surrogates: links keep them); None in ``.ade/``."""
    decoded = os.fsdecode(raw_path)
    return None if is_ade_state(decoded) else decoded


def redacted(hits: list[FileLineHit]) -> list[FileLineHit]:
    """Hits whose whole text passed the index's redaction: a file snippet (a window of it) never
    shows a token the index would have replaced."""
    from engine.redaction import redact_lines

    texts = redact_lines([hit.text for hit in hits])
    return [FileLineHit(hit.path, hit.line, text) for hit, text in zip(hits, texts, strict=True)]
