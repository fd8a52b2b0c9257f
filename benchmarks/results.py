"""Writing one benchmark's section into ``benchmarks/RESULTS.md`` without touching the others."""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).with_name("RESULTS.md")


def replace_section(heading: str, text: str, results: Path = RESULTS) -> None:
    """Replace the ``heading`` section (up to the next ``## ``) with ``text``, or append it."""
    existing = results.read_text() if results.exists() else "# Benchmark results\n\n"
    start = existing.find(heading)
    if start >= 0:
        end = existing.find("\n## ", start + 1)
        existing = existing[:start] + existing[end + 1 if end >= 0 else len(existing) :]
    results.write_text(existing.rstrip("\n") + "\n\n" + text)
