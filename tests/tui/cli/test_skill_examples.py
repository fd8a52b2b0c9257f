"""The agent skill's examples are real: each `ade search` line in SKILL.md runs on the demo."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import no_daemon_flag, run_main

from tui.commands.skill import skill_text

pytestmark = pytest.mark.usefixtures("cli_path")


def _search_examples() -> list[list[str]]:
    blocks = re.findall(r"```bash\n(.*?)```", skill_text(), flags=re.S)
    lines = [line.split("  #")[0] for block in blocks for line in block.splitlines()]
    return [shlex.split(line)[1:] for line in lines if line.startswith("ade search --json")]


def test_the_skill_has_examples() -> None:
    assert len(_search_examples()) >= 3


@pytest.mark.parametrize("argv", _search_examples(), ids=" ".join)
def test_every_skill_example_runs_on_the_demo(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    capsys.readouterr()
    code = main_with_project(indexed_demo, argv, capsys)
    assert code in (0, 1)


def main_with_project(root: Path, argv: list[str], capsys: pytest.CaptureFixture[str]) -> int:
    run = run_main(capsys, [argv[0], "--project", str(root), *no_daemon_flag(), *argv[1:]])
    # Only the note of a relaxed answer (docs/search.md) may be said.
    noted = ("warning: other word forms matched too: ", "warning: no match for every word; ")
    assert all(line.startswith(noted) for line in run.err.splitlines()), run.err
    return run.code


def test_the_cli_never_loads_textual_or_rich(indexed_demo: Path) -> None:
    """`ade search`, `ade open` and `ade skill` stay light: no UI toolkit in the process."""
    code = (
        "import sys; from tui.cli import main; "
        f"main(['search', 'timeout', '--project', {str(indexed_demo)!r}, '--no-daemon']); "
        f"main(['open', 'ade://pr/41', '--project', {str(indexed_demo)!r}]); "
        "main(['skill']); "
        "loaded = sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'rich'}); "
        "print('LOADED', loaded, file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)  # fmt: skip
    assert "LOADED []" in done.stderr


def _help_examples() -> list[list[str]]:
    from tui.commands.search import EXAMPLES

    lines = [line.strip() for line in EXAMPLES.splitlines() if line.startswith("  ade search")]
    return [shlex.split(line)[1:] for line in lines]


@pytest.mark.parametrize("argv", _help_examples(), ids=" ".join)
def test_every_help_example_runs_on_the_demo(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    assert main_with_project(indexed_demo, argv, capsys) in (0, 1)
