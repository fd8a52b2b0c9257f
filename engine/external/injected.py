"""Text an agent put into a conversation itself, told from the user's words (docs/agents.md).

Agents write their own notices, summaries and context into messages whose role is ``user``: a
compaction summary, a slash command's output, the IDE's open file, the project's instruction
files. Each agent's module lists what its own source (or, for a closed-source agent, the sessions
it writes) injects, as ``Marker`` rows; ``split_part`` reads ONE content part of a message against
them — never a message by its first characters, since one message may hold the user's words and
injected parts side by side. What a marker finds is either left out (``hide``: boilerplate that
says nothing) or kept as a ``system_message`` (``system``: found by ``role:system`` only, shown as
``system:``, never a title); what no marker finds is the user's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

Verdict = Literal["hide", "system"]
"""What becomes of injected text: left out, or kept as a ``system_message``."""


@dataclass(frozen=True)
class Marker:
    """One kind of injected text: it opens with ``start`` (after leading whitespace) and, when
    ``end`` is given, closes with it (a tag: what follows is read again); without ``end`` it runs
    to the end of the part. ``label`` names it where it is shown (``system (compaction summary)``)."""

    start: str
    verdict: Verdict
    label: str
    end: str | None = None


def tag(name: str, verdict: Verdict, label: str) -> Marker:
    """The marker of ``<name>…</name>`` (a tag's attributes allowed: ``<name `` opens it too)."""
    return Marker(f"<{name}", verdict, label, f"</{name}>")


Piece = tuple[Literal["user", "hide", "system"], str, str]
"""``(whose, text, label)``: one piece of a content part."""


def split_part(text: str, markers: Sequence[Marker]) -> list[Piece]:
    """The pieces of one content part: each injected run found by ``markers`` (a tag anywhere at
    a line's start, a prefix marker at the part's start), and the user's words around them."""
    pieces: list[Piece] = []
    rest = text
    words: list[str] = []
    at_start = True
    while rest.strip():
        found = _leading(rest, markers, at_start)
        if found is None:
            line, newline, rest = rest.partition("\n")
            words.append(line + newline)
            at_start = False
            continue
        marker, cut = found
        _flush(words, pieces)
        pieces.append((marker.verdict, rest.lstrip()[:cut].strip(), marker.label))
        rest = rest.lstrip()[cut:]
    _flush(words, pieces)
    return pieces


def _leading(text: str, markers: Sequence[Marker], at_start: bool) -> tuple[Marker, int] | None:
    """The marker ``text`` opens with, and where its run ends; a prefix marker only at the part's
    start, a tag at any line's start."""
    body = text.lstrip()
    for marker in markers:
        if marker.end is None and not at_start:
            continue
        if not body.startswith(marker.start):
            continue
        if marker.end is not None and len(body) > len(marker.start):
            after = body[len(marker.start)]
            if after not in "> \n\t/":
                continue  # ``<ide_selectionx>`` is another tag
        if marker.end is None:
            return marker, len(body)
        close = body.find(marker.end, len(marker.start))
        return marker, len(body) if close < 0 else close + len(marker.end)
    return None


def _flush(words: list[str], pieces: list[Piece]) -> None:
    said = "".join(words).strip()
    if said:
        pieces.append(("user", said, ""))
    words.clear()


def user_events(
    text: str, markers: Sequence[Marker], said: str = "user_message"
) -> list[tuple[str, dict[str, Any]]]:
    """The events of one user content part: the user's words as ``said``, kept notices as
    ``system_message`` (with their ``notice`` label), hidden runs left out."""
    out: list[tuple[str, dict[str, Any]]] = []
    for whose, piece, label in split_part(text, markers):
        if whose == "user":
            out.append((said, {"text": piece}))
        elif whose == "system":
            out.append(("system_message", {"text": piece, "notice": label}))
    return out


def users_words(text: str, markers: Sequence[Marker]) -> str:
    """Only the user's words of one content part ("" when it is all injected): a title's source."""
    return "\n".join(piece for whose, piece, _ in split_part(text, markers) if whose == "user")
