"""Closing the head of a JSON line that was cut (a 50 MiB chat line read up to a cap).

A chat line longer than the read cap is not dropped: its first bytes are turned
back into a valid, smaller object — the string being cut ends with a mark, open containers are
closed — so the message is indexed truncated and marked, as terminal output is. The scan is a
regex tokenizer (strings are matched whole by the regex engine, not walked a character at a
time in Python), so a megabyte head costs milliseconds.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*"'  # a whole string (unrolled: linear, no backtracking)
    r"|[{}\[\],:]"  # structure
    r'|[^"{}\[\],:\s]+'  # a number or a literal
    r"|\s+",
    re.DOTALL,
)

_PARTIAL_ESCAPE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}$|\\u[0-9a-fA-F]{0,3}$")
"""An escape cut short (``\\u12``), or a high surrogate whose low half was cut off."""


def close_cut_json(head: str, mark: str) -> str | None:
    """Turn the first part of a JSON document into a complete one, or ``None`` if hopeless.

    A string value open at the cut is kept (minus a half escape) and ends with ``mark``; a cut
    inside a key, a number or a literal falls back to the last complete value. The result may
    still fail to parse (it was garbage to begin with): the caller treats it as any line.
    """
    stack: list[str] = []
    last_good: tuple[int, int] | None = None  # (end offset, stack depth) after a whole value
    prev = ""
    pos = 0
    while pos < len(head):
        match = _TOKEN.match(head, pos)
        if match is None:
            if head[pos] != '"':
                break
            if _expects_key(stack, prev):
                break  # a key cut in half: fall back to the last whole value
            body = head[pos + 1 :]
            body = _PARTIAL_ESCAPE.sub("", body)
            if _odd_trailing_backslashes(body):
                body = body[:-1]
            return head[:pos] + '"' + body + _escape(mark) + '"' + _closers(stack)
        token, end = match.group(), match.end()
        first = token[0]
        if first in "{[":
            stack.append(first)
            last_good = (end, len(stack))
        elif first in "}]":
            if not stack:
                return None
            stack.pop()
            last_good = (end, len(stack))
        elif first == '"':
            if not _expects_key(stack, prev):
                last_good = (end, len(stack))
        elif not token.isspace() and first not in ",:" and end < len(head):
            last_good = (end, len(stack))  # a scalar at the very end may itself be cut
        if not token.isspace():
            prev = first if first in "{[,:" else "v"
        pos = end
    if last_good is None:
        return None
    end, depth = last_good
    return head[:end] + _closers(stack[:depth]) if depth <= len(stack) else None


def salvage_cut_line(line: bytes, mark: str) -> bytes:
    """``line`` (a JSON line cut at the read cap, maybe ending in ``\n``) closed into a whole
    line ending in ``\n``; unchanged when nothing could be salvaged (it is then counted as a
    malformed line by the parser, as before)."""
    head = line.removesuffix(b"\n").decode("utf-8", errors="replace")
    closed = close_cut_json(head, mark)
    return (closed.encode("utf-8") if closed is not None else line.removesuffix(b"\n")) + b"\n"


def _expects_key(stack: list[str], prev: str) -> bool:
    return bool(stack) and stack[-1] == "{" and prev in ("{", ",")


def _odd_trailing_backslashes(text: str) -> bool:
    return (len(text) - len(text.rstrip("\\"))) % 2 == 1


def _closers(stack: list[str]) -> str:
    return "".join("}" if opener == "{" else "]" for opener in reversed(stack))


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
