"""Line framing: one JSON message a line, each frame at most ``MAX_FRAME_BYTES``.

A pure incremental decoder (no sockets) so the rules are testable byte by byte. A frame that
grows past the limit before its newline is reported once; the decoder then discards input up to
the next newline, but the server cuts such a connection off anyway (a client that sends 1 MiB
without a newline is broken or hostile).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from _json import encode_basestring  # json's own C quoting, without the json package

TYPE_CHECKING = False  # no `typing` on a daemon-answered search (the start-up budget)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MAX_FRAME_BYTES = 1024 * 1024
"""1 MiB: a query is a few hundred bytes; anything this large is garbage or an attack."""


class FrameTooLarge(Exception):
    """A frame exceeded ``MAX_FRAME_BYTES`` before its terminating newline."""


class FrameDecoder:
    """Split a byte stream into newline-terminated frames.

    Args:
        max_frame: the largest frame accepted, newline excluded.
    """

    def __init__(self, max_frame: int = MAX_FRAME_BYTES) -> None:
        self._max = max_frame
        self._buffer = bytearray()
        self._scanned = 0

    @property
    def pending(self) -> bool:
        """True while part of a frame has arrived without its newline."""
        return bool(self._buffer)

    def feed(self, data: bytes) -> list[bytes]:
        """Add received bytes; return every complete frame (without the newline).

        Blank lines are skipped (a human typing into ``socat`` sends them).

        Raises:
            FrameTooLarge: the current unterminated frame is over the limit.
        """
        self._buffer += data
        frames: list[bytes] = []
        while True:
            index = self._buffer.find(b"\n", self._scanned)
            if index < 0:
                self._scanned = len(self._buffer)
                break
            frame = bytes(self._buffer[:index])
            del self._buffer[: index + 1]
            self._scanned = 0
            if len(frame) > self._max:
                raise FrameTooLarge(f"frame of {len(frame)} bytes exceeds {self._max}")
            if frame.strip():
                frames.append(frame)
        if len(self._buffer) > self._max:
            raise FrameTooLarge(f"unterminated frame exceeds {self._max} bytes")
        return frames


def encode_frame(message: bytes) -> bytes:
    """One frame on the wire: the compact JSON text plus a newline."""
    return message + b"\n"


def compact_json(value: object) -> str:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` of a request's plain
    values (dicts with text keys, lists, text, integers, booleans, None), the same text, without
    importing the ``json`` package: a one-shot search sends its request first and imports the
    decoder while the daemon answers (the start-up budget). Anything else (a float, a tuple…)
    is handed to ``json.dumps`` itself.

    Raises:
        ValueError: a value refers to itself (as ``json.dumps`` raises it).
    """
    try:
        return "".join(_compact_parts(value, 0))
    except _NotPlain:
        import json

        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class _NotPlain(Exception):
    """A value ``compact_json`` leaves to ``json.dumps``."""


_MAX_DEPTH = 100
"""Deeper than any request: a self-referring value is left to ``json.dumps``, which names it."""


def _compact_parts(value: object, depth: int) -> list[str]:
    if type(value) is str:
        return [encode_basestring(value)]
    if value is None:
        return ["null"]
    if value is True:
        return ["true"]
    if value is False:
        return ["false"]
    if type(value) is int:
        return [int.__repr__(value)]
    if depth >= _MAX_DEPTH:
        raise _NotPlain
    parts: list[str] = []
    if type(value) is list:
        parts.append("[")
        for index, item in enumerate(value):
            if index:
                parts.append(",")
            parts += _compact_parts(item, depth + 1)
        parts.append("]")
        return parts
    if type(value) is dict:
        parts.append("{")
        for index, (key, item) in enumerate(value.items()):
            if type(key) is not str:
                raise _NotPlain
            if index:
                parts.append(",")
            parts += (encode_basestring(key), ":", *_compact_parts(item, depth + 1))
        parts.append("}")
        return parts
    raise _NotPlain


_JSON_SPACE = " \t\n\r"
"""What ``json.loads`` skips around a document (its ``WHITESPACE`` pattern's class)."""

_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}
"""``json.decoder``'s reading of the three non-standard constants, which ``json.loads`` accepts."""


class _ScannerSettings:
    """The settings ``json.JSONDecoder()`` hands its C scanner: json's defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


_scan: Callable[[str, int], tuple[Any, int]] | None = None


def decode_json_line(line: bytes) -> Any:
    """``json.loads(line)`` of one frame, through the same C scanner ``json.loads`` runs, without
    importing the ``json`` package (its decoder imports ``re``, and with it ``enum``,
    ``functools`` and ``collections``: ~6 ms of a ~10 ms interpreter on a daemon-answered
    search, benchmarks/journal/2026-12-07-lean-client.md). A line that does not start as the
    daemon writes one (UTF-8, an object first) is handed to ``json.loads`` itself, which
    tells UTF-16 and BOMs apart; ``tests/engine/rpc/test_decode_json_line.py`` holds the two
    equal.

    Raises:
        ValueError: the line is not one JSON document (``UnicodeDecodeError`` included);
            ``RecursionError`` for nesting deeper than the interpreter allows, as ``json.loads``.
    """
    global _scan
    if not line.startswith(b"{") or len(line) < 2 or not line[1]:
        import json  # a BOM, UTF-16/32 or no object: json's own detection

        return json.loads(line)
    if _scan is None:
        try:
            from _json import make_scanner
        except ImportError:  # an interpreter without json's C speedups
            import json

            return json.loads(line)
        # typeshed types the settings as the scanner's own class; any object with the attributes does
        _scan = make_scanner(_ScannerSettings())  # type: ignore[arg-type]
    text = line.decode("utf-8", "surrogatepass")  # as json.loads decodes bytes
    start = len(text) - len(text.lstrip(_JSON_SPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration:
        raise ValueError("no JSON value") from None
    if end != len(text.rstrip(_JSON_SPACE)):
        raise ValueError("extra data after the JSON value")
    return value
