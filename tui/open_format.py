"""Plain-text rendering of `ade open` targets: context lines and detail records.

The target line is marked with ``>`` in the gutter so it survives ``grep``/``less`` and needs no
colour. Headless-friendly: no rich, no Textual.
"""

from __future__ import annotations

import dataclasses

from engine.links.details import Context, Detail

FOCUS_MARK = "> "
"""Gutter of the target line; every other line gets the same width of spaces."""


def format_context(found: Context, *, numbered: bool) -> str:
    """Lines around a target; ``numbered`` prefixes each with its chat event seq."""
    if not found.lines:
        return "(nothing to show)"
    out: list[str] = []
    width = max(len(str(line.number)) for line in found.lines) if numbered else 0
    for index, line in enumerate(found.lines):
        gutter = FOCUS_MARK if index == found.focus else "  "
        head = f"{gutter}[{line.number:>{width}}] " if numbered else gutter
        pad = " " * len(head)
        text_lines = line.text.split("\n") or [""]
        out.append(head + text_lines[0])
        out.extend(pad + more for more in text_lines[1:])
    return "\n".join(out)


MAX_SHOWN = 10_000
"""``ade open --context`` at most (``open_link.MAX_CONTEXT``): a longer message is not offered."""


def cut_long_messages(found: Context, max_lines: int, *, flag: str = "--context") -> Context:
    """``found`` with each message cut to its first ``max_lines`` lines (at least one: the line
    the link lands on), and a line saying how many were left out and how to see them. A tool
    result of thousands of lines is one message; ``--context 10`` must not print it whole."""
    keep = max(max_lines, 1)
    lines = []
    for line in found.lines:
        parts = line.text.split("\n")
        if len(parts) > keep:
            left = len(parts) - keep
            more = f"… {left:,} more line{'s' if left != 1 else ''} of this message"
            hint = f" ({flag} {len(parts)} shows them)" if len(parts) <= MAX_SHOWN else ""
            line = dataclasses.replace(line, text="\n".join([*parts[:keep], more + hint]))
        lines.append(line)
    return dataclasses.replace(found, lines=tuple(lines))


def format_detail(detail: Detail) -> str:
    """A PR, commit, branch, lane, file, artifact or Linear record as text."""
    lines = [f"{detail.kind}  {detail.title}"]
    fields = detail.fields
    if detail.kind == "file":
        # The title names the file and the ``>`` gutter marks the line: a ``file:`` and a
        # ``line:`` field would only repeat them (``--status``'s last ingest).
        fields = tuple((n, v) for n, v in fields if v != detail.title and n != "line")
    width = max((len(name) for name, _ in fields), default=0)
    lines.extend(f"{name + ':':<{width + 1}} {value}" for name, value in fields)
    if detail.kind == "file":
        lines.append("")
        lines.append(_numbered(detail))
    elif detail.body:
        lines.append("")
        lines.append(detail.body.rstrip("\n"))
    return "\n".join(lines)


def _numbered(detail: Detail) -> str:
    body = detail.body.split("\n") if detail.body else []
    last = detail.first_line + max(len(body) - 1, 0)
    width = len(str(last))
    out = []
    for index, text in enumerate(body):
        number = detail.first_line + index
        gutter = FOCUS_MARK if number == detail.focus_line else "  "
        out.append(f"{gutter}{number:>{width}}  {text}")
    return "\n".join(out) or "(empty file)"
