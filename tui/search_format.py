"""Formatters for `ade search`: compact readable text, and the stable JSON wire form.

Text is for people: one block per hit (kind, title, lane, relative time, snippet with matches
highlighted, deep link) and a footer with the count and the next-page hint. Colour only on a TTY
and never with ``NO_COLOR`` (https://no-color.org). Plain ANSI codes are written by hand so the
CLI never imports rich or Textual (start-up time is a feature). Every field is made printable
(``tui.printable``) before our own colour codes go around it; JSON is escaped the same way.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from tui.printable import printable, printable_json, printable_spans

TYPE_CHECKING = False  # `typing` and the wire types cost an in-process search (start-up budget)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

    from engine.types import (
        HitExplanation,
        IndexStatus,
        MatchRange,
        SearchQueryResult,
        SearchResultItem,
    )


INDENT = " " * 9
"""Continuation lines line up under the title (after the 8-wide kind column and a space)."""

KIND_LABEL: dict[str, str] = {
    "chat": "chat",
    "terminal": "term",
    "pr": "pr",
    "commit": "commit",
    "branch": "branch",
    "lane": "lane",
    "file": "file",
    "artifact": "artifact",
    "linear": "linear",
}

_BOLD, _DIM, _MATCH, _KIND, _RESET = "\x1b[1m", "\x1b[2m", "\x1b[1;33m", "\x1b[36m", "\x1b[0m"


def highlight(text: str, ranges: Sequence[MatchRange], *, color: bool) -> str:
    """Mark the match ranges: bold yellow with colour, ``[…]`` brackets without. The text is
    made printable piece by piece, so the ranges still cover what they covered."""
    text, spans = printable_spans(text, ((r.start, r.end) for r in ranges))
    out: list[str] = []
    position = 0
    for start, end in spans:
        out.append(text[position:start])
        inner = text[start:end]
        out.append(f"{_MATCH}{inner}{_RESET}" if color else f"[{inner}]")
        position = end
    out.append(text[position:])
    return "".join(out)


def _one_line_snippet(item: SearchResultItem) -> tuple[str, Sequence[MatchRange]]:
    # Newlines inside a snippet would break the block layout; a space keeps offsets intact.
    return item.snippet.replace("\n", " ").replace("\t", " "), item.match_ranges


def _relative_time(when: int | None, now: datetime) -> str:
    from tui.logic.ages import relative_time  # deferred: `--json` prints no ages (tui.logic)

    return relative_time(when, now, ago=True)


def _messages(item: SearchResultItem) -> str | None:
    """A ``--sessions`` row's counts: ``14 messages`` or ``14 messages, 3 match``."""
    if item.message_count is None:
        return None
    text = f"{item.message_count} message{'s' if item.message_count != 1 else ''}"
    if item.match_count:
        text += f", {item.match_count} match{'es' if item.match_count != 1 else ''}"
    return text


def format_hit(item: SearchResultItem, now: datetime, *, color: bool) -> str:
    kind = KIND_LABEL.get(item.kind) or printable(item.kind)
    where = " · ".join(
        printable(part)
        for part in (
            item.tool,
            item.lane_name or item.lane_id,
            _messages(item),
            _relative_time(item.updated_at, now),
            item.project_name if item.project_name else None,
        )
        if part
    )
    head_kind = f"{_KIND}{kind:<8}{_RESET}" if color else f"{kind:<8}"
    title = f"{_BOLD}{printable(item.title)}{_RESET}" if color else printable(item.title)
    lines = [
        f"{head_kind} {title}",
        f"         {_DIM if color else ''}{where}{_RESET if color else ''}",
    ]
    snippet, ranges = _one_line_snippet(item)
    if snippet.strip():
        lines.append(f"         {highlight(snippet, ranges, color=color)}")
    link = printable(item.deep_link)
    lines.append(f"         {_DIM if color else ''}{link}{_RESET if color else ''}")
    return "\n".join(lines)


def format_results_text(
    result: SearchQueryResult,
    now: datetime,
    *,
    color: bool,
    explain: Sequence[HitExplanation] | None = None,
    first: int = 1,
) -> str:
    """Every hit as a block, then the footer (count, truncation, next-page cursor); ``first``
    is the page's first hit number (a later page reads ``3–4 of 4``)."""
    blocks = [format_hit(item, now, color=color) for item in result.items]
    if explain is not None:
        blocks = [
            block + "\n" + format_explanation(why, color=color)
            for block, why in zip(blocks, explain, strict=True)
        ]
    folded = folded_into_session_rows(result.items)
    blocks = [block for number, block in enumerate(blocks) if number not in folded]
    shown = len(result.items)
    span = f"{first}–{first + shown - 1}" if first > 1 and shown else f"{shown}"
    noun = (
        "session" if shown and all(i.message_count is not None for i in result.items) else "result"
    )
    footer = f"{span} of {result.total} {noun}{'s' if result.total != 1 else ''}"
    if result.results_truncated:
        footer += " (truncated: narrow the query)"
    if explain is not None and result.results_truncated:
        # --explain says why the ranking may be partial: the window, and the
        # scoring budget when a warning says it bounded which matches were scored.
        footer += "\nwindow: only the best-scored matches are ranked and reachable by paging"
        footer += "".join(
            f"\nwindow: {printable(w)}" for w in result.warnings if "ranked the best" in w
        )
    if explain is not None and result.relaxed is not None:
        footer += (f"\nrelaxed: strict matches first, then each relaxed step's; the last step"
                   f" used: {result.relaxed} (docs/search.md)")  # fmt: skip
    if result.next_cursor:
        footer += f"\nnext page: --cursor {printable(result.next_cursor)}"
    return "\n\n".join([*blocks, footer]) if blocks else footer


def folded_into_session_rows(items: Sequence[SearchResultItem]) -> set[int]:
    """Positions of message rows already shown by an earlier row of their session: a chat
    session row (a title match) carries its best message's snippet and link, so that message
    is not printed a second time (``engine.service.chat_anchor``)."""
    from engine.query.session_fold import session_folds

    return set(session_folds(items))


def format_warnings(result: SearchQueryResult) -> list[str]:
    return [f"warning: {printable(w)}" for w in result.warnings]


def format_results_json(
    result: SearchQueryResult, explain: Sequence[HitExplanation] | None = None
) -> str:
    """The DESIGN §6 wire form; ``--explain`` adds an ``explain`` array parallel to ``items``."""
    from engine.types import to_json, to_wire

    if explain is None:
        return printable_json(to_json(result).decode())
    import msgspec

    from engine.types import explanation_to_wire

    document = {**to_wire(result), "explain": [explanation_to_wire(e) for e in explain]}
    return printable_json(msgspec.json.encode(document).decode())


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value + 0.0:.4f}"  # + 0.0 turns -0.0 into 0.0


def format_explanation(why: HitExplanation, *, color: bool) -> str:
    """Two lines under a hit: tier, BM25 and tie-break keys; then which term matched where."""
    from datetime import UTC, datetime

    stamp = datetime.fromtimestamp(why.updated_at / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    first = (
        f"why: tier {why.tier} ({why.sort_key[0]}) · bm25 {_score(why.bm25)} exact,"
        f" {_score(why.bm25_split)} parts · then updated {stamp} desc, id {why.doc_id} asc"
        f" · from {why.source}"
    )
    if why.relaxed is not None:  # matched by a relaxed step, scored by its query
        first += f" · relaxed: {why.relaxed}"
    terms = "; ".join(
        f"{t.term} → {', '.join(t.where) if t.where else 'no match'}" for t in why.terms
    )
    second = f"terms: {terms}" if terms else "terms: none (filter-only query: newest first)"
    dim, reset = (_DIM, _RESET) if color else ("", "")
    lines = [printable(first), printable(factors_line(why)), printable(second)]
    return "\n".join(f"{INDENT}{dim}{line}{reset}" for line in lines)


def factors_line(why: HitExplanation) -> str:
    """Each ranking factor of one row by name, in the order the sort key applies them
    (docs/search.md): a words step's words held and their rarity, the exact-phrase boost, BM25 with its field weights, the identifier boost, recency as
    the tie-breaker, and the session dedupe."""
    weights = dict(why.field_weights)
    parts_weight = weights.pop("identifier parts", None)
    fields = ", ".join(f"{name} ×{w:g}" for name, w in weights.items())
    if why.phrase is None:
        phrase = "phrase boost n/a"
    elif why.phrase:
        phrase = f"phrase boost {why.phrase_boost:g} (words as one phrase)"
    else:
        phrase = "phrase boost 0 (words apart)"
    ident = f"identifier parts {_score(why.bm25_split)}"
    if parts_weight is not None:
        ident += f" (×{parts_weight:g}, after whole words)"
    if why.folded_into:
        dedupe = f"folded into {why.folded_into}"
    elif why.folds:
        dedupe = f"carries {', '.join(why.folds)}"
    else:
        dedupe = "not folded"
    semantic = "n/a" if why.semantic is None else f"cosine {why.semantic:.3f}"
    words = ""
    if why.words_held is not None:
        distinctive, typed, every, of = why.words_held
        rare = "-" if why.rarity is None else f"{why.rarity:.2f}"
        titled = "-" if why.titled is None else str(why.titled)
        words = (f"words held: {distinctive} distinctive ({typed} as typed), {every} of {of}"
                 f" · rarity {rare} (summed IDF) · {titled} in the title · ")  # fmt: skip
    return (f"factors: {words}{phrase} · bm25 {_score(why.bm25)} ({fields or 'no weights'}) · {ident}"
            f" · recency tie-break: newest first · session dedupe: {dedupe}"
            f" · semantic: {semantic}")  # fmt: skip


def _stamp(epoch_ms: int | None) -> str:
    if epoch_ms is None:
        return "never"
    from datetime import UTC, datetime

    return datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def format_status_text(status: IndexStatus) -> str:
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(status.docs_by_kind.items())) or "none"
    lines = [
        f"state:        {status.state}",
        f"index:        {status.db_path} ({status.db_bytes:,} bytes, schema v{status.schema_version})",
        f"documents:    {status.doc_count:,} ({kinds})",
        f"sources:      {status.source_count:,} ({status.pending_sources} pending)",
        f"watcher:      {status.watcher_state}",
        f"last ingest:  {_stamp(status.last_ingest_at)}",
        f"backfill:     {_stamp(status.backfill_completed_at)}",
    ]
    if status.health_check_since is not None:
        lines.append(f"health check: running since {_stamp(status.health_check_since)}")
    if status.recreated_reason:
        lines.append(f"recreated:    {status.recreated_reason}")
    agents = {agent.name for agent in status.agents}
    others = {k: v for k, v in status.warnings.items() if not _an_agents(k, agents)}
    if others:  # the agents' skips are on their own lines, with their reasons
        skipped = ", ".join(f"{k} {v}" for k, v in sorted(others.items()))
        lines.append(f"skipped:      {skipped}")
    lines += _history_lines(status) + _discovery_lines(status)
    return printable("\n".join(lines))


def _an_agents(key: str, agents: set[str]) -> bool:
    """Whether warning ``key`` counts for an agent (``claude``, ``gemini:<file>``,
    ``chat:codex-<id>``): ``engine.external.skips.agent_of``, without importing the engine."""
    name = key.removeprefix("chat:")
    if name != key:
        return any(name.startswith(f"{agent}-") for agent in agents)
    return name in agents or name.split(":", 1)[0] in agents


def _history_lines(status: IndexStatus) -> list[str]:
    history = status.commit_history
    if history is None:
        return []
    if history.indexing:
        total = f" of about {history.total:,}" if history.total else ""
        state = f"indexing ({history.done:,}{total} commits of this pass)"
    else:
        state = "complete"
    if history.bounded and history.depth is not None:
        state += f", limited to the newest {history.depth:,} commits per lane"
    return [f"history:      {state}", *(f"              {note}" for note in history.notes)]


def _discovery_lines(status: IndexStatus) -> list[str]:
    """One line per agent: where it was searched, what was found there and is this project's,
    the folders earlier runs found its sessions under, what was skipped and why."""
    roots = {found.source: found for found in status.discovery}
    lines: list[str] = []
    for agent in status.agents:
        where = ", ".join(agent.folders) or "-"
        line = (f"{agent.name + ':':<14}searched {where}; {agent.found:,} session(s) found,"
                f" {agent.tied:,} of this project")  # fmt: skip
        earlier = roots.pop(agent.name, None)
        if earlier is not None and set(earlier.roots) - set(agent.folders):  # moved since
            line += "; sessions from " + ", ".join(
                f"{r or '?'} ({n})" for r, n in zip(earlier.roots, earlier.sessions, strict=False)
            )
        if agent.skipped:
            line += "; skipped: " + ", ".join(f"{r} {n:,}" for r, n in agent.skipped.items())
        lines.append(line)
    for found in roots.values():  # a status from a daemon without the agents' lines
        where = ", ".join(
            f"{r or '?'} ({n})" for r, n in zip(found.roots, found.sessions, strict=False)
        )
        lines.append(f"{found.source + ':':<14}searched {found.searched or '-'}"
                     f"; sessions from {where or 'none'}")  # fmt: skip
    return lines
