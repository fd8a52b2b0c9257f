"""Write the demo's proof artifacts: metadata JSON with the file it points to beside it."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Any

from engine.demo.clock import ago, iso
from engine.demo.store import write, write_json

PNG_SIZE = (64, 40)
"""Width and height of the demo screenshot: small, but a real, viewable PNG."""


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def _stored_zlib(data: bytes) -> bytes:
    """A zlib stream of uncompressed (stored) deflate blocks: identical bytes on every zlib."""
    out = bytearray(b"\x78\x01")
    for start in range(0, max(len(data), 1), 65535):
        block = data[start : start + 65535]
        final = 1 if start + 65535 >= len(data) else 0
        out += struct.pack("<BHH", final, len(block), len(block) ^ 0xFFFF) + block
    return bytes(out + struct.pack(">I", zlib.adler32(data)))


def screenshot_png() -> bytes:
    """A 64x40 RGB "checkout page": a header bar, a form box and a green pay button."""
    width, height = PNG_SIZE
    rows = bytearray()
    for y in range(height):
        rows.append(0)  # filter type None
        for x in range(width):
            if y < 6:
                pixel = (32, 48, 96)
            elif 26 <= y < 32 and 16 <= x < 48:
                pixel = (40, 167, 69)
            elif 10 <= y < 22 and 8 <= x < 56:
                pixel = (235, 238, 242) if (x + y) % 12 else (200, 205, 212)
            else:
                pixel = (255, 255, 255)
            rows += bytes(pixel)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", _stored_zlib(bytes(rows)))
        + _chunk(b"IEND", b"")
    )


LOAD_TEST_LOG = (
    "".join(
        f"[{second:03d}s] rps={95 + second % 7} p50=182ms p99={410 + (second * 37) % 900}ms "
        f"errors={1 if second % 17 == 0 else 0}{' ReadTimeoutError x1' if second % 17 == 0 else ''}\n"
        for second in range(120)
    )
    + "summary: 11712 requests, 8 ReadTimeoutError, 0 double charges, p99 1.21s\n"
)
"""Output of the retry load test the ABC-123 lane attached as proof."""

REPORT_MD = """\
# Retry benchmark (ABC-123)

Load test: 100 rps against a processor stub that answers 2% of requests after 12 s.

| policy | 502s | p99 | double charges |
|---|---|---|---|
| no retry (main) | 2.1% | 10.0 s | 0 |
| fixed 1 s retry | 0.4% | 13.1 s | 0 |
| exponential backoff + jitter | 0.07% | 11.4 s | 0 |

We agreed to use exponential backoff: it halves the retry load on the processor during an
incident compared with the fixed retry, and `connect_timeout=2` fails over faster.
"""

ARTIFACTS: tuple[tuple[str, str, str, str, str, str, float, bytes], ...] = (
    (
        "art-checkout-screenshot",
        "Checkout page after retry change",
        "screenshot",
        "checkout-page.png",
        "abc-123-retry",
        "chat-abc123-backoff",
        2.9,
        screenshot_png(),
    ),
    (
        "art-retry-load-test",
        "Load test log: retries under processor timeouts",
        "log",
        "retry-load-test.log",
        "abc-123-retry",
        "term-pytest-retry",
        2.8,
        LOAD_TEST_LOG.encode(),
    ),
    (
        "art-retry-report",
        "Retry benchmark report (ABC-123)",
        "report",
        "retry-benchmark.md",
        "abc-123-retry",
        "chat-abc123-backoff",
        2.7,
        REPORT_MD.encode(),
    ),
)
"""(id, title, kind, file name, lane, session, days before DEMO_NOW, file bytes)."""


def artifact_meta(entry: tuple[str, str, str, str, str, str, float, bytes]) -> dict[str, Any]:
    """The ``.ade/artifacts/<id>.json`` object."""
    artifact_id, title, kind, path, lane, session, days, _ = entry
    return {
        "id": artifact_id,
        "title": title,
        "kind": kind,
        "path": path,
        "laneId": lane,
        "sessionId": session,
        "createdAt": iso(ago(days=days)),
    }


def write_artifacts(ade: Path) -> tuple[str, ...]:
    """Write every artifact and its file; return the artifact ids."""
    for entry in ARTIFACTS:
        write_json(ade / "artifacts" / f"{entry[0]}.json", artifact_meta(entry))
        write(ade / "artifacts" / entry[3], entry[7])
    return tuple(entry[0] for entry in ARTIFACTS)
