"""Recall and precision of ``ade search`` against git's own tools (docs/search.md), per query class.

Run: ``python -m benchmarks.bench_recall --repo fzf=https://github.com/junegunn/fzf
--repo git=https://github.com/git/git`` (each source is cloned into a temporary folder; a local
path or mirror works too). ``--no-commits`` skips the commit half (git.git's 82,000 commits take
minutes to index).

* **files**: every page of ``kind:file QUERY`` (500 a page, cursor to cursor, an empty index so
  only the file delegate answers) against ``git grep -I -i -E`` with each word anchored at a
  token start (``(^|[^[:alnum:]])word``: what a prefix token means), several words ``--and``-ed,
  a path word (``builtin/``) kept when it starts a token of the file's path.
* **commits**: every page of ``kind:commit QUERY`` through the real index of the clone against
  ``git log --branches -i -F --grep`` (substring, as users type it) and against the same log
  with the token-start regex (``-E``): the first shows what a substring search finds that a word
  search does not, the second is the like-for-like figure.

Recall = found ∩ truth / truth, precision = found ∩ truth / found. ``ade`` also finds a word
as a camelCase part of an identifier (``preview`` in ``togglePreview``), as the index does;
git grep has no such notion, so the lines found only that way are counted apart (``parts``) and
``precision+parts`` counts them as right.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

NOW = datetime(2026, 12, 6, tzinfo=UTC)

FILE_QUERIES: dict[str, dict[str, list[str]]] = {
    "fzf": {
        "identifier": ["FZF_DEFAULT_OPTS", "reader", "preview"],
        "two words on a line": ["preview window", "func error"],
        "path word narrows": ["func src/tui/", "terminal src/"],
        "common word (past 1,000 lines)": ["func"],
    },
    "git": {
        "identifier": ["strbuf_addf", "oid_to_hex", "commit_graph"],
        "two words on a line": ["strbuf release", "die error"],
        "path word narrows": ["strbuf_addf builtin/", "die t/helper/"],
        "common word (past 2,000 lines)": ["die", "free"],
    },
}

COMMIT_QUERIES: dict[str, list[str]] = {
    "fzf": ["preview", "bind", "ansi", "windows"],
    "git": ["strbuf", "commit-graph", "sparse", "reftable"],
}

_WORD = re.compile(r"[A-Za-z0-9]+")


def _token_regex(word: str) -> str:
    """ERE: ``word``'s tokens consecutive, the first at a token start (a prefix token search)."""
    parts = _WORD.findall(word)
    return "(^|[^[:alnum:]])" + "[^[:alnum:]]+".join(parts)


def _is_path_word(word: str) -> bool:
    return word.endswith("/")


def grep_truth(root: Path, query: str) -> set[tuple[str, int]]:
    """The lines ``git grep`` finds for ``query`` (see the module docstring)."""
    words = query.split()
    line_words = [w for w in words if not _is_path_word(w)]
    path_words = [w for w in words if _is_path_word(w)]
    args = ["git", "-C", str(root), "grep", "-I", "-i", "-n", "-z", "-E"]
    for i, word in enumerate(line_words):
        args += (["--and"] if i else []) + ["-e", _token_regex(word)]
    done = subprocess.run([*args, "--"], capture_output=True, check=False)
    found: set[tuple[str, int]] = set()
    for record in done.stdout.split(b"\n"):
        parts = record.split(b"\0", 2)
        if len(parts) == 3:
            path = os.fsdecode(parts[0])
            if all(re.search(rf"(^|[^A-Za-z0-9]){re.escape(p.strip('/'))}", path,
                             re.IGNORECASE) for p in path_words):  # fmt: skip
                found.add((path, int(parts[1])))
    return found


def file_answer(root: Path, query: str) -> tuple[set[tuple[str, int]], bool, int]:
    """Every file line ``ade search kind:file QUERY`` reaches by paging, whether it said it cut,
    and its ``total``."""
    from engine.delegates.gather import delegated_for_args
    from engine.index.db import connect, open_index
    from engine.project.locate import open_project
    from engine.project.model import Lane
    from engine.query.run import run_query
    from engine.types import SearchQueryArgs

    project = open_project(root)
    lanes = [Lane(id="primary", name=root.name, path=root, branch=None, primary=True)]
    lines: set[tuple[str, int]] = set()
    truncated, total, cursor = False, 0, None
    with tempfile.TemporaryDirectory() as tmp:
        conn = connect(open_index(Path(tmp) / "index.db").path)
        while True:
            args = SearchQueryArgs(query=query, kinds=("file",), limit=500, cursor=cursor)
            extras, _ = delegated_for_args(project, args, NOW, lanes)
            result = run_query(conn, args, project=project, now=NOW, lanes=lanes,
                               extra_candidates=extras)  # fmt: skip
            truncated, total = truncated or result.results_truncated, result.total
            for item in result.items:
                path, _, line = (item.anchor or "").rpartition(":")
                if line.isdigit():
                    lines.add((path, int(line)))
            cursor = result.next_cursor
            if cursor is None:
                break
        conn.close()
    return lines, truncated, total


def log_truth(root: Path, word: str, *, token: bool) -> set[str]:
    grep = ["-E", f"--grep={_token_regex(word)}"] if token else ["-F", f"--grep={word}"]
    done = subprocess.run(["git", "-C", str(root), "log", "--branches", "-i", *grep,
                           "--format=%H"], capture_output=True, text=True, check=True)  # fmt: skip
    return set(done.stdout.split())


def commit_answers(root: Path, words: list[str]) -> dict[str, tuple[set[str], bool]]:
    """Every commit ``ade search kind:commit WORD`` reaches by paging, per word."""
    from engine.embedded import EmbeddedClient
    from engine.types import SearchQueryArgs

    out: dict[str, tuple[set[str], bool]] = {}
    with EmbeddedClient.open(root, start_worker=False) as client:
        client.service.catch_up()
        for word in words:
            shas: set[str] = set()
            truncated, cursor = False, None
            while True:
                args = SearchQueryArgs(query=word, kinds=("commit",), limit=500, cursor=cursor)
                result = client.query(args)
                truncated = truncated or result.results_truncated
                shas.update(i.anchor or "" for i in result.items)
                cursor = result.next_cursor
                if cursor is None:
                    break
            out[word] = (shas, truncated)
    return out


def _camel_part(root: Path, hit: tuple[str, int], query: str) -> bool:
    """Whether a line ade found holds a query word as a camelCase part (``xPreview``)."""
    try:
        with (root / hit[0]).open(encoding="utf-8", errors="replace") as handle:
            for number, text in enumerate(handle, 1):
                if number == hit[1]:
                    return any(re.search(f"[a-z0-9]{w[:1].upper()}{re.escape(w[1:])}", text)
                               for w in query.split() if not _is_path_word(w))  # fmt: skip
    except OSError:
        pass
    return False


def _score(found: set[object], truth: set[object]) -> tuple[float, float]:
    both = len(found & truth)
    return (both / len(truth) if truth else 1.0), (both / len(found) if found else 1.0)


@contextmanager
def cloned(source: str) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="ade-recall-") as tmp:
        root = Path(tmp) / "repo"
        subprocess.run(["git", "clone", "-q", source, str(root)], check=True)
        yield root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repo", action="append", required=True, metavar="NAME=SOURCE",
                        help="fzf=… or git=…: a URL or local path to clone")  # fmt: skip
    parser.add_argument("--no-commits", action="store_true")
    args = parser.parse_args()
    os.environ["HOME"] = tempfile.mkdtemp(prefix="ade-recall-home-")  # never the user's agents
    for spec in args.repo:
        name, _, source = spec.partition("=")
        with cloned(source) as root:
            print(f"## {name} ({source})")
            print("| class | query | git grep lines | ade lines | recall | precision | parts | "
                  "precision+parts | cut |\n|---|---|---|---|---|---|---|---|---|")  # fmt: skip
            for klass, queries in FILE_QUERIES[name].items():
                for query in queries:
                    truth = grep_truth(root, query)
                    found, cut, _ = file_answer(root, query)
                    recall, precision = _score(set(found), set(truth))
                    parts = sum(_camel_part(root, hit, query) for hit in found - truth)
                    with_parts = (len(found & truth) + parts) / len(found) if found else 1.0
                    print(f"| {klass} | `{query}` | {len(truth):,} | {len(found):,} | "
                          f"{recall:.3f} | {precision:.3f} | {parts:,} | {with_parts:.3f} | "
                          f"{'yes' if cut else 'no'} |")  # fmt: skip
            if args.no_commits:
                continue
            words = COMMIT_QUERIES[name]
            answers = commit_answers(root, words)
            print("\n| commit query | log -F | log token | ade | recall -F | recall token | "
                  "precision token | cut |\n|---|---|---|---|---|---|---|---|")  # fmt: skip
            for word in words:
                found, cut = answers[word]
                substring, token = (
                    log_truth(root, word, token=False),
                    log_truth(root, word, token=True),
                )
                recall_f, _ = _score(set(found), set(substring))
                recall_t, precision_t = _score(set(found), set(token))
                print(f"| `{word}` | {len(substring):,} | {len(token):,} | {len(found):,} | "
                      f"{recall_f:.3f} | {recall_t:.3f} | {precision_t:.3f} | "
                      f"{'yes' if cut else 'no'} |")  # fmt: skip
            print()


if __name__ == "__main__":
    main()
