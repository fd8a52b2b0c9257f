"""A first index on a full disk. The index file gets made but its schema cannot be
written: every command answers from the live sources with one line saying why, and the index is
built once space returns. A real, small filesystem (tmpfs) holds the project's cache."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import run_main, search_argv

pytestmark = pytest.mark.usefixtures("cli_path")

CACHE_KIB = 16_384
FREE_KIB = 100
"""Room for the file's first page and its lock files, not for the schema (16 KiB pages in a WAL);
the cache holds the whole demo index once the filler is gone."""


@pytest.fixture
def full_cache(demo_copy: Path) -> Iterator[Path]:
    """The demo's ``.ade/cache`` on a tmpfs of ``CACHE_KIB`` with all but ``FREE_KIB`` taken;
    yields the filler file (delete it to free the space)."""
    cache = demo_copy / ".ade" / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={CACHE_KIB}k", "tmpfs", str(cache)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs (needs root): {mounted.stderr.strip()}")
    try:
        filler = cache / "filler"
        filler.write_bytes(b"\0" * ((CACHE_KIB - FREE_KIB) * 1024))
        yield filler
    finally:
        subprocess.run(["umount", "-l", str(cache)], check=False)


def test_a_first_index_on_a_full_disk_answers_and_recovers(
    demo_copy: Path, full_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for _ in range(2):  # the first command, and every later one while the disk stays full
        run = run_main(capsys, search_argv(demo_copy, "webhook"))
        assert run.code == 0, run.err
        assert "Traceback" not in run.err
        assert "no such table" not in run.err
        assert run.err.strip().splitlines() == [
            "warning: search index unavailable (not created yet: disk full):"
            " showing live sources only"
        ]
        assert "docs/architecture.md" in run.out  # the files of the lanes still answer
    status = run_main(capsys, search_argv(demo_copy, "--status"))
    assert (status.code, "Traceback" in status.err) == (0, False), status.err
    full_cache.unlink()  # space returns
    healed = run_main(capsys, search_argv(demo_copy, "--json", "webhook"))
    assert healed.code == 0, healed.err
    answer = json.loads(healed.out)
    assert not [w for w in answer["warnings"] if "search index" in w], answer["warnings"]
    assert {item["kind"] for item in answer["items"]} - {"file"}  # indexed hits are back
