"""The engine is headless: importing every engine module never loads textual, rich or tui.

Enforced twice (STYLE.md): ruff's banned-api rule catches a direct import at lint time; this test
catches an indirect one (an engine module importing a helper that imports Textual) at run time,
in a fresh interpreter so nothing already imported by pytest hides it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import importlib, pkgutil, sys
import engine
names = [
    m.name for m in pkgutil.walk_packages(engine.__path__, "engine.")
    if not m.name.endswith("__main__")  # entry points run on import
    and m.name != "engine.index._fts_rank_key"  # a SQLite loadable extension, no Python module
]
for name in names:
    importlib.import_module(name)
leaked = sorted(m for m in sys.modules if m.split(".")[0] in {"textual", "rich", "tui"})
print(len(names))
print(",".join(leaked))
"""


def test_engine_never_imports_textual_rich_or_tui() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    imported, leaked = int(out[0]), out[1] if len(out) > 1 else ""
    assert imported >= 3
    assert leaked == ""


def test_cli_search_path_does_not_import_textual() -> None:
    """`ade --version` (and so the dispatcher that `ade search` goes through) stays light."""
    probe = (
        "import sys; from tui import cli; cli.main(['--version']); "
        "print(any(m.startswith('textual') for m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip().splitlines()[-1] == "False"
