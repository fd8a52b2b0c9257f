"""Constants that two sides must agree on are defined once: a second copy drifts."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engine.errors import UsageError
from engine.kinds import parse_kinds
from engine.types import KIND_ALIASES

ROOT = Path(__file__).resolve().parents[1]

SHARED = {
    "MAX_LIMIT": "engine/kinds.py",
    "DEFAULT_LIMIT": "engine/types.py",
    "ProgressCallback": "engine/types.py",
    "KIND_ALIASES": "engine/kinds.py",
    "AGENT_TOOLS": "engine/types.py",
    "SLOT_BITS": "engine/index/schema.py",
    "LIVE_TAIL_BYTES": "engine/project/transcripts.py",
    "MATCH_STYLE": "tui/widgets/result_list.py",
    "RECORDINGS": "engine/demo/terminals.py",
}


def _module_level_definitions() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {name: [] for name in SHARED}
    for package in ("engine", "tui"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                targets = node.targets if isinstance(node, ast.Assign) else []
                if isinstance(node, ast.AnnAssign):
                    targets = [node.target]
                for target in targets:
                    if isinstance(target, ast.Name) and target.id in found:
                        found[target.id].append(path.relative_to(ROOT).as_posix())
    return found


def test_each_shared_constant_has_one_home() -> None:
    assert _module_level_definitions() == {name: [home] for name, home in SHARED.items()}


def test_cli_kind_flag_reads_the_shared_alias() -> None:
    assert KIND_ALIASES == {"issue": "linear"}
    assert parse_kinds(["issue"]) == ("linear",)
    assert parse_kinds(["Issue", "chat", "chat"]) == ("linear", "chat")
    with pytest.raises(UsageError, match=r"valid kinds: .*linear, issue"):
        parse_kinds(["nope"])
