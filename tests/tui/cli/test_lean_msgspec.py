"""``tui.lean_msgspec``: msgspec imported without ``typing_extensions`` answers the same."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

PROBE = """
import json, sys
from tui.lean_msgspec import import_msgspec_lean
if sys.argv[1] == "lean":
    import_msgspec_lean()
    lean = "typing_extensions" not in sys.modules and "msgspec" in sys.modules
    no_platform = "platform" not in sys.modules
else:
    lean = no_platform = False
from engine.types import SearchQueryArgs, SearchQueryResult, from_wire, to_json
args = from_wire({"query": "retry", "kinds": ["chat", "pr"], "laneId": "primary", "limit": 3},
                 SearchQueryArgs)
result = SearchQueryResult(items=(), total=0, next_cursor=None, warnings=("w",))
refused = []
for bad in ({"query": "x", "kinds": ["nope"]}, {"query": "x", "limit": "3"}):
    try:
        from_wire(bad, SearchQueryArgs)
    except Exception as err:
        refused.append(f"{type(err).__name__}: {err}")
import typing_extensions  # still importable afterwards: the real module
import platform, uuid  # the real `platform`; `uuid` read the same system through the stand-in
linux = [uuid._LINUX, platform.system() == "Linux", hasattr(platform, "python_version")]
print(json.dumps({"lean": lean, "no_platform": no_platform, "linux": linux, "args": to_json(args).decode(), "result": to_json(result).decode(),
                  "refused": refused, "te": typing_extensions.__name__}))
"""


def _probe(mode: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", PROBE, mode], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=True)  # fmt: skip
    return json.loads(done.stdout)


def test_lean_msgspec_encodes_decodes_and_refuses_as_the_full_one() -> None:
    lean, full = _probe("lean"), _probe("full")
    assert lean.pop("lean") is True
    assert full.pop("lean") is False
    # msgspec's `uuid` imports `platform` for `system()` alone: a stand-in answered it
    assert lean.pop("no_platform") is True
    assert full.pop("no_platform") is False
    assert lean == full
    assert lean["te"] == "typing_extensions"
