"""The warm-path list is read from ARCHITECTURE.md's section, names before each bullet's colon."""

from __future__ import annotations

from warm_path import kept_off_the_warm_path


def test_the_names_before_each_colon_of_the_section_only() -> None:
    text = (
        "## Before\n- `early`: no\n## The warm path\nprose `prose`\n"
        "- `a`, `b.c`: why, see `not_this`\n- `d`: x\n\n## After\n- `late`: no\n"
    )
    assert kept_off_the_warm_path(text) == ("a", "b.c", "d")


def test_the_real_section_lists_the_ui_and_the_watcher() -> None:
    assert {"textual", "watchfiles", "engine.ingest.watcher"} <= set(kept_off_the_warm_path())
