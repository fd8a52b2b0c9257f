"""Known-item search: does the one thing a person half-remembers come first?

Sixty queries (``known_items_queries``), each written as a person recalls one document of the
demo project or of a generated one (``known_items_project``), in five styles. Every query runs
through ade's public search API (``EmbeddedClient.query``, so whatever ranking, relaxation and
semantic layer ade has is what is measured) and, in the same run, through a plain BM25 ranking
over the same documents: one flat FTS5 table (title, body) with ``bm25()``, the query's words
OR-ed, its ``kind:``, ``lane:`` (a lane id) and ``tool:`` filters applied as ade applies them. A chat session row of ade's answer counts as the target
message when its link opens that message (``lands_on``: the row's ``deepLink`` names the
target's session and its event; docs/search.md "Chat hits link to a message"), since that row
is what a reader sees and opens; flat BM25's rows carry no link and count by doc id only.
A second paraphrase set (``HELD_OUT_DEMO``, ``HELD_OUT_GENERATED``, written after the first
was tuned against) and a second filtered set (``FILTERED_NEW_DEMO``, ``FILTERED_NEW_GENERATED``,
whose filters leave many candidates) run the same way, each on a row of its own, outside ``all``.
Reported per style: success@1, success@3, MRR (over the
first 10) and how many queries returned nothing. With the semantic extra installed a third
column is ade with it switched off (``ADE_SEMANTIC=0`` at query time).

Usage: ``python -m benchmarks.bench_known_items [--write]`` (``--write``: into RESULTS.md).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import apsw

from benchmarks.known_items_project import build as build_generated
from benchmarks.known_items_queries import (
    DEMO,
    FILTERED_NEW_DEMO,
    FILTERED_NEW_GENERATED,
    FILTERED_NEW_STYLE,
    GENERATED,
    HELD_OUT_DEMO,
    HELD_OUT_GENERATED,
    HELD_OUT_STYLE,
    STYLES,
    hit,
)
from benchmarks.results import replace_section
from engine.demo import build_demo
from engine.embedded import EmbeddedClient
from engine.index.db import connect
from engine.index.documents import fetch_bodies
from engine.links.deeplink import parse_deep_link
from engine.query.source_text import snippet_texts
from engine.types import SearchQueryArgs

DEPTH = 10
"""Ranks past this count as not found (MRR is over the first ten)."""

HEADING = "## Known-item search"

Ranked = list[tuple[str, str, str]]
"""A system's answer: ``(doc id, title, deep link)`` best first (flat BM25: no link, "")."""


@contextmanager
def _env(name: str, value: str) -> Iterator[None]:
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


def _semantic_installed() -> bool:
    """Whether this tree has the semantic extra, installed (a tree before it has neither)."""
    try:
        from engine.semantic import installed
    except ImportError:
        return False
    return installed()


def _ade(client: EmbeddedClient) -> Callable[[str], Ranked]:
    def ask(query: str) -> Ranked:
        result = client.query(SearchQueryArgs(query=query, limit=DEPTH))
        return [(item.doc_id, item.title, item.deep_link or "") for item in result.items]

    return ask


def _flat_bm25(client: EmbeddedClient) -> Callable[[str], Ranked]:
    """One FTS5 table over the same documents ade indexed (bodies re-derived as for snippets)."""
    project = client.project
    conn = connect(project.ade_dir / "cache" / "search-index.db")
    rows = list(conn.execute("SELECT id, doc_id, kind, title, lane_id, tool FROM docs"))
    bodies = snippet_texts(conn, project, fetch_bodies(conn, [r[0] for r in rows]))
    conn.close()
    flat = apsw.Connection(":memory:")
    flat.execute(
        "CREATE VIRTUAL TABLE flat USING fts5(title, body, kind UNINDEXED, doc_id UNINDEXED,"
        " lane_id UNINDEXED, tool UNINDEXED)"
    )
    flat.executemany(
        "INSERT INTO flat(title, body, kind, doc_id, lane_id, tool) VALUES (?,?,?,?,?,?)",
        [(title, bodies.get(rowid, ""), kind, doc_id, lane, tool)
         for rowid, doc_id, kind, title, lane, tool in rows],
    )  # fmt: skip

    def ask(query: str) -> Ranked:
        filters: dict[str, list[str]] = {"kind": [], "lane": [], "tool": []}
        for key, values in re.findall(r"(?<!\S)(kind|lane|tool):(\S+)", query):
            filters[key] += values.split(",")
        words = re.findall(r"\w+", re.sub(r"(?<!\S)(?:kind|lane|tool):\S+", " ", query))
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        sql = "SELECT doc_id, title FROM flat WHERE flat MATCH ?"
        params: list[object] = [match]
        if filters["tool"]:  # only chats have an agent: tool: keeps chats of those agents
            filters["kind"] = [k for k in filters["kind"] or ["chat"] if k == "chat"] or ["-"]
        for key, column in (("kind", "kind"), ("lane", "lane_id"), ("tool", "tool")):
            if filters[key]:
                sql += f" AND {column} IN ({','.join('?' * len(filters[key]))})"
                params += filters[key]
        sql += " ORDER BY bm25(flat), doc_id LIMIT ?"
        return [(str(d), str(t), "") for d, t in flat.execute(sql, [*params, DEPTH])]

    return ask


Opens = tuple[str, int] | None
"""Where a target chat message's own link opens: ``(session id, event)``; None for any other
target (a prefix, a title, another kind)."""


def _opens(conn: apsw.Connection, target: str) -> Opens:
    """The session and event the link of the chat message ``target`` opens at (its anchor)."""
    if not target.startswith("chat:") or target.endswith("*"):
        return None
    row = conn.execute(
        "SELECT session_id, anchor FROM docs WHERE doc_id = ? AND kind = 'chat'", (target,)
    ).fetchone()
    if row is None or row[0] is None or not str(row[1] or "").isdigit():
        return None
    return str(row[0]), int(str(row[1]))


def lands_on(opens: Opens, doc_id: str, link: str) -> bool:
    """Whether a chat session row (``chat:<sid>``) links to the message ``opens`` names:
    ``ade open`` of its link shows that session at that event (``engine.links.details.chat_focus``),
    as the message's own link does."""
    if opens is None or not link or doc_id != f"chat:{opens[0]}":
        return False
    parsed = parse_deep_link(link)
    return parsed.kind == "chat" and parsed.target == opens[0] and parsed.event == opens[1]


def _score(ranked: Ranked, target: str, opens: Opens = None) -> int | None:
    """The 1-based rank of ``target`` in ``ranked`` (None: not in the first ``DEPTH``); a
    session row linking to the target message counts (``lands_on``)."""
    for rank, (doc_id, title, link) in enumerate(ranked[:DEPTH], start=1):
        if hit(target, doc_id, title) or lands_on(opens, doc_id, link):
            return rank
    return None


def _counts(row: str, style: str) -> bool:
    """Whether a query of ``style`` counts in the table's ``row``: ``all`` is the first 60
    (comparable with earlier runs), the second paraphrase and filtered sets have rows of their
    own."""
    return row == style or (row == "all" and style in STYLES)


def _table(ranks: dict[str, dict[str, list[int | None]]], empty: dict[str, dict[str, int]]) -> str:
    systems = list(ranks)
    head = "| style | n | " + " | ".join(f"{s} @1 / @3 / MRR / empty" for s in systems) + " |"
    lines = [head, "|" + "---|" * (2 + len(systems))]
    for style in (*STYLES, "all", HELD_OUT_STYLE, FILTERED_NEW_STYLE):
        cells = []
        n = 0
        for system in systems:
            got = [r for st, rs in ranks[system].items() if _counts(style, st) for r in rs]
            n = len(got)
            at1 = sum(1 for r in got if r == 1)
            at3 = sum(1 for r in got if r is not None and r <= 3)
            mrr = sum(1 / r for r in got if r is not None) / max(n, 1)
            nothing = sum(v for st, v in empty[system].items() if _counts(style, st))
            cells.append(f"{at1}/{n} / {at3}/{n} / {mrr:.2f} / {nothing}")
        lines.append(f"| {style} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run(work: Path, verbose: bool) -> str:
    demo = work / "demo"
    build_demo(demo)
    generated = build_generated(work / "generated")
    systems = ["ade", "BM25 (flat FTS5)"]
    semantic = _semantic_installed() and os.environ.get("ADE_SEMANTIC", "1") != "0"
    if semantic:
        systems.insert(1, "ade without the semantic extra")
    styles = (*STYLES, HELD_OUT_STYLE, FILTERED_NEW_STYLE)
    ranks: dict[str, dict[str, list[int | None]]] = {s: {st: [] for st in styles} for s in systems}
    empty: dict[str, dict[str, int]] = {s: dict.fromkeys(styles, 0) for s in systems}
    for root, queries in (
        (demo, DEMO + HELD_OUT_DEMO + FILTERED_NEW_DEMO),
        (generated, GENERATED + HELD_OUT_GENERATED + FILTERED_NEW_GENERATED),
    ):
        with EmbeddedClient.open(root, start_worker=False) as client:
            client.service.catch_up()
            asks: dict[str, Callable[[str], Ranked]] = {
                "ade": _ade(client), "BM25 (flat FTS5)": _flat_bm25(client),
            }  # fmt: skip
            conn = connect(client.project.ade_dir / "cache" / "search-index.db")
            opens = {target: _opens(conn, target) for _, _, target in queries}
            conn.close()
            for style, query, target in queries:
                for system in systems:
                    if system == "ade without the semantic extra":
                        with _env("ADE_SEMANTIC", "0"):
                            ranked = asks["ade"](query)
                    else:
                        ranked = asks[system](query)
                    rank = _score(ranked, target, opens[target])
                    ranks[system][style].append(rank)
                    empty[system][style] += not ranked
                    if verbose:
                        print(f"{system[:12]:12} {style:10} {rank!s:5} {query!r}")
    return _table(ranks, empty)


def _revision() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          cwd=Path(__file__).parent, check=False)  # fmt: skip
    branch = subprocess.run(["git", "branch", "--show-current"], capture_output=True, text=True,
                            cwd=Path(__file__).parent, check=False)  # fmt: skip
    return f"{branch.stdout.strip()} {done.stdout.strip()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="write the table into RESULTS.md")
    parser.add_argument("--verbose", action="store_true", help="print each query's rank")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ade-known-items-") as tmp:
        os.environ.setdefault("HOME", tmp)
        table = run(Path(tmp), args.verbose)
    text = (
        f"{HEADING}\n\n`python -m benchmarks.bench_known_items` on {_revision()}: 60 queries "
        "(30 over the demo, 30 over `known_items_project`), 12 a style, and a second paraphrase set "
        f"of {len(HELD_OUT_DEMO) + len(HELD_OUT_GENERATED)} and a second filtered set of "
        f"{len(FILTERED_NEW_DEMO) + len(FILTERED_NEW_GENERATED)} (rows of their own, not in "
        "`all`); each "
        "cell is success@1 / success@3 / MRR@10 / queries answered with nothing.\n\n"
        f"{table}\n"
    )
    print(text)
    if args.write:
        replace_section(HEADING, text)


if __name__ == "__main__":
    main()
