"""Line framing: one JSON message a line, each frame at most ``MAX_FRAME_BYTES``.

A pure incremental decoder (no sockets) so the rules are testable byte by byte. A frame that
grows past the limit before its newline is reported once; the decoder then discards input up to
the next newline, but the server cuts such a connection off anyway (a client that sends 1 MiB
without a newline is broken or hostile).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

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
