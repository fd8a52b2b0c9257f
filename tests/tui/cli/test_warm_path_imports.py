"""What a warm in-process search leaves out as a wheel install loads it (the start-up budget).

The probe runs a fresh interpreter with ``-S`` (no editable-install finder; see
``test_startup_imports._modules``) on a warm copy of the demo. Each deferred module has its
positive control: the run that does need it loads it.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import search_argv
from test_startup_imports import NOT_ON_A_WARM_SEARCH, _loaded, _modules

DEFERRED = (
    "engine.ingest.gzcache",
    "engine.project.sessions",
    "engine.service.status",
)
"""The inflated-``.gz`` cache (only a pass reading a transcript fills it), the session listing
(only an ingested ``session`` entry or the status reads it) and the status and rebuild module."""

ON_FIRST_USE = ("engine.index.checks", "engine.ingest.health", "engine.ingest.pass_group")
"""Loaded on first use (start-up budget): the index's health check and counts and the drainer's health
checker (the status reports both), and a first index's group of passes."""


def test_a_warm_wheel_search_loads_no_ingestion_side(queried_demo: Path) -> None:
    modules = _modules(search_argv(queried_demo, "timeout", "--json"), site=False)
    assert _loaded(modules, DEFERRED) == []
    assert _loaded(modules, ON_FIRST_USE) == []
    assert _loaded(modules, NOT_ON_A_WARM_SEARCH) == []
    assert "engine.delegates.files" in modules  # the probe did run a search


def test_a_grown_transcript_brings_in_the_transcript_readers(warm_demo: Path) -> None:
    chat = next((warm_demo / ".ade" / "chats").glob("*.jsonl"))
    line = {"seq": 999, "ts": "2026-06-15T11:00:00+00:00", "type": "user_message",
            "id": "grown", "text": "a grown transcript", "status": "accepted"}  # fmt: skip
    with chat.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")
    modules = _modules(search_argv(warm_demo, "timeout", "--json"), site=False)
    assert _loaded(modules, DEFERRED[:2]) == list(DEFERRED[:2])
    assert {"engine.ingest.transcripts", "engine.ingest.docs"} <= modules


def test_the_status_brings_in_its_module(warm_demo: Path) -> None:
    modules = _modules(search_argv(warm_demo, "--status", "--json"), site=False)
    assert {"engine.service.status", "engine.project.sessions"} <= modules
    assert {"engine.index.checks", "engine.ingest.health"} <= modules


def test_a_first_index_brings_in_the_pass_group(demo_copy: Path) -> None:
    modules = _modules(search_argv(demo_copy, "timeout", "--json"), site=False)
    assert "engine.ingest.pass_group" in modules
