"""``--status`` keeps the warnings it finds by listing the project under the warm-run
manifest, so a warm status reads no session file; a change in the listed folders lists again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import no_daemon_flag, run_main, search_argv

from engine.index.db import connect
from engine.index.txn import meta_get
from engine.service.status_scan import CACHE_KEY

pytestmark = pytest.mark.usefixtures("cli_path")


def _status(root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    run = run_main(capsys, search_argv(root, "--status", "--json"))
    assert run.code == 0, run.err
    return dict(json.loads(run.out))


def _cached(root: Path) -> str | None:
    conn = connect(root / ".ade" / "cache" / "search-index.db")
    try:
        return meta_get(conn, CACHE_KEY)
    finally:
        conn.close()


def test_a_warm_status_reuses_its_listing_until_a_folder_changes(
    warm_demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _status(warm_demo, capsys)
    if no_daemon_flag():  # in process, every run's catch-up matched the stored manifest
        assert _cached(warm_demo) is not None  # so its listing is kept under it
    assert _status(warm_demo, capsys)["warnings"] == first["warnings"]
    # A transcript swapped for a link out of the project: its folder changed, the next status
    # lists again and says so (a cache that outlived the change would not).
    outside = tmp_path / "outside.log"
    outside.write_text("$ echo elsewhere\n")
    log = warm_demo / ".ade" / "terminals" / "term-git-graph.log"
    log.unlink()
    log.symlink_to(outside)
    changed = _status(warm_demo, capsys)
    assert changed["warnings"] != first["warnings"]
    warned = changed["warnings"]
    assert isinstance(warned, dict)
    assert any("term-git-graph" in key for key in warned), warned
