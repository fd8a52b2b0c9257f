"""The no-terminal refusal as a golden: the exact stderr and exit code of
``ade </dev/null`` and ``ade palette --print --query x </dev/null``, each run as a real process
with no controlling terminal (``setsid``), compared with ``snapshots/no_terminal/<form>.txt``.

Regenerate with ``ADE_UPDATE_GOLDENS=1`` (see ``goldens.py``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .goldens import assert_golden

FORMS = {
    "ade": [],
    "ade_palette_print_query_x": ["palette", "--print", "--query", "x"],
}
"""Golden name -> arguments; stdin is /dev/null for each."""


@pytest.mark.parametrize("name", FORMS)
def test_the_no_terminal_refusal_matches_its_golden(name: str, tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "ADE_DAEMON": "off",
           "ADE_RUNTIME_DIR": str(tmp_path / "run"), "ADE_CONFIG_DIR": str(tmp_path / "cfg")}  # fmt: skip
    env.pop("NO_COLOR", None)
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", *FORMS[name]],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        cwd=tmp_path,
        env=env,
        start_new_session=True,  # setsid: no controlling terminal
        timeout=30,
        check=False,
    )
    shown = f"exit: {done.returncode}\nstdout: {done.stdout.decode()!r}\nstderr:\n{done.stderr.decode()}"
    assert_golden("no_terminal", name, shown)
