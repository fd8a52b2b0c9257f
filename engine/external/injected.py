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

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

Verdict = Literal["hide", "system"]
"""What becomes of injected text: left out, or kept as a ``system_message``."""


@dataclass(frozen=True)
class Marker:
    """One kind of injected text: it opens with ``start`` (after leading whitespace) and, when
    ``end`` is given, closes with it (a tag: what follows is read again); without ``end`` it runs
    to the end of the part. ``label`` names it where it is shown (``system (compaction summary)``).
    A ``pattern`` marker (``block``) is a regular expression matched at a line's start instead:
    the run is what it matches."""

    start: str
    verdict: Verdict
    label: str
    end: str | None = None
    pattern: re.Pattern[str] | None = None


def tag(name: str, verdict: Verdict, label: str) -> Marker:
    """The marker of ``<name>…</name>`` (a tag's attributes allowed: ``<name `` opens it too)."""
    return Marker(f"<{name}", verdict, label, f"</{name}>")


def block(pattern: str, verdict: Verdict, label: str) -> Marker:
    """The marker of a run matched by ``pattern`` at a line's start (``re.DOTALL``): injected
    text with no tag of its own, such as a fenced file or a run of ``System:`` lines."""
    return Marker("", verdict, label, pattern=re.compile(pattern, re.DOTALL))


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
        if marker.pattern is not None:
            found = marker.pattern.match(body)
            if found is not None and found.end() > 0:
                return marker, found.end()
            continue
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


@dataclass(frozen=True)
class Frame:
    """How an agent wraps the user's words in a user part it writes (Cursor's and Grok's
    ``<user_query>``): where a part holds the frame, only the framed text is the user's, and
    what lies around it is the agent's — read against the markers, and what none of them finds
    kept as a ``system`` message labelled ``label``, never dropped unseen."""

    open: str
    close: str
    label: str = "context"


def query_frame(name: str = "user_query", label: str = "context") -> Frame:
    """The frame ``<name>…</name>``."""
    return Frame(f"<{name}>", f"</{name}>", label)


def framed_part(text: str, markers: Sequence[Marker], frame: Frame) -> list[Piece]:
    """The pieces of one content part that may hold ``frame``: without it, ``split_part``; with
    it, the framed words the user's and everything else the agent's."""
    if frame.open not in text:
        return split_part(text, markers)
    pieces: list[Piece] = []
    rest = text
    while frame.open in rest:
        before, _, after = rest.partition(frame.open)
        said, closed, rest = after.partition(frame.close)
        pieces += _around(before, markers, frame)
        if said.strip():
            pieces.append(("user", said.strip(), ""))
        if not closed:
            rest = ""
    return pieces + _around(rest, markers, frame)


def _around(text: str, markers: Sequence[Marker], frame: Frame) -> list[Piece]:
    """Text beside the frame: the markers' verdicts, the rest the agent's context."""
    return [
        ("system", piece, frame.label) if whose == "user" else (whose, piece, label)
        for whose, piece, label in split_part(text, markers)
    ]


def user_events(
    text: str, markers: Sequence[Marker], said: str = "user_message", frame: Frame | None = None
) -> list[tuple[str, dict[str, Any]]]:
    """The events of one user content part: the user's words as ``said``, kept notices as
    ``system_message`` (with their ``notice`` label), hidden runs left out."""
    out: list[tuple[str, dict[str, Any]]] = []
    pieces = split_part(text, markers) if frame is None else framed_part(text, markers, frame)
    for whose, piece, label in pieces:
        if whose == "user":
            out.append((said, {"text": piece}))
        elif whose == "system":
            out.append(("system_message", {"text": piece, "notice": label}))
    return out


def users_words(text: str, markers: Sequence[Marker], frame: Frame | None = None) -> str:
    """Only the user's words of one content part ("" when it is all injected): a title's source."""
    pieces = split_part(text, markers) if frame is None else framed_part(text, markers, frame)
    return "\n".join(piece for whose, piece, _ in pieces if whose == "user")
