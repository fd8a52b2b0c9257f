"""Shell commands in the palette and the palette under the prompt (docs/palette.md, docs/terminal.md).

The project holds one ``ade term`` recording with prompt marks, written through the real recorder
with an injected clock (so durations are exact), and indexed once per module. Pilot tests drive
the palette's filters and ``--print-command``; the inline mode (``--height``) and the bash key
binding of docs/palette.md run for real in tmux: inline drawing needs a real terminal, which a
snapshot (headless) cannot show.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from engine.embedded import EmbeddedClient
from engine.project.locate import open_project
from engine.terminal.recorder import TerminalRecorder
from tests.conftest import git
from tui.logic.rows import PaletteRow
from tui.screens.palette import PaletteScreen
from tui.widgets.result_list import ResultList

from .conftest import DEMO_NOW, fixed_clock, make_app, settle
from .goldens import assert_golden
from .test_tmux_e2e import ADE, exit_row, tmux, wait_for

__all__ = ["tmux"]

DOCS = Path(__file__).resolve().parents[3] / "docs" / "palette.md"

RUNS = (  # command line, output, exit status, seconds it ran, folder
    ("make test", "FAILED tests/test_api.py::test_retry", 2, 4, "/src/app"),
    ("ls -la", "total 0", 0, 0, "/src/app"),
    ("./deploy.sh staging", "deployed staging", 0, 95, "/src/ops"),
)


def _command(line: str, output: str, code: int, cwd: str) -> list[bytes]:
    """The bytes a hooked shell sends for one command: folder, prompt, typed line, start, output,
    done — in the three reads whose times bracket it."""
    return [
        f"\x1b]7;file://host{cwd}\x07\x1b]133;A\x07$ \x1b]133;B\x07{line}\r\n".encode(),
        b"\x1b]133;C\x07" + output.encode() + b"\r\n",
        f"\x1b]133;D;{code}\x07".encode(),
    ]


@pytest.fixture(scope="module")
def commands_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("commands") / "proj"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "commit", "-q", "--allow-empty", "-m", "first")
    now = [DEMO_NOW - timedelta(hours=1)]
    rec = TerminalRecorder(open_project(root), title="bash shell", command="/bin/bash",
                           tool="shell", lane_id=None, clock=lambda: now[0])  # fmt: skip
    rec.start()
    for line, output, code, seconds, cwd in RUNS:
        prompt, started, done = _command(line, output, code, cwd)
        rec.write(prompt)
        rec.write(started)
        now[0] += timedelta(seconds=seconds)
        rec.write(done)
        now[0] += timedelta(seconds=30)
    rec.finish(0)
    with EmbeddedClient.open(root, clock=fixed_clock, start_worker=False) as client:
        client.service.catch_up()
    return root


@pytest.fixture
def client(commands_project: Path) -> Iterator[EmbeddedClient]:
    opened = EmbeddedClient.open(commands_project, clock=fixed_clock, start_worker=False)
    yield opened
    opened.close()


def _hit_rows(app: object) -> list[PaletteRow]:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, PaletteScreen)
    return [r for r in screen.query_one(ResultList).rows if r.item is not None]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("exit:2", ["$ make test  (exit 2, 4.0s, in /src/app)"]),
        ("exit:0 cwd:app", ["$ ls -la  (exit 0, 0.0s, in /src/app)"]),
        ("took:1m", ["$ ./deploy.sh staging  (exit 0, 1m35s, in /src/ops)"]),
        ("took:<1s", ["$ ls -la  (exit 0, 0.0s, in /src/app)"]),
        (
            "cwd:/src exit:0",
            [
                "$ ./deploy.sh staging  (exit 0, 1m35s, in /src/ops)",
                "$ ls -la  (exit 0, 0.0s, in /src/app)",
            ],
        ),
        ("cwd:App", []),  # folders are case-sensitive
        ("cwd:/src/ap", []),  # a folder, not a prefix of its name
    ],
)
async def test_the_command_filters_narrow_the_palette(
    client: EmbeddedClient, query: str, expected: list[str]
) -> None:
    app = make_app(client, initial_query=query)
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(pilot)
        assert [r.title for r in _hit_rows(app)] == expected


async def test_print_command_gives_the_command_line_of_a_command_hit(
    client: EmbeddedClient,
) -> None:
    app = make_app(client, initial_query="exit:fail", print_mode=True)
    app.print_command = True
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(pilot)
        rows = app.screen.query_one(ResultList)
        rows.highlighted = rows.rows.index(_hit_rows(app)[0])
        await pilot.press("enter")
    assert app.return_value == "make test"


needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")


def _shell(tmux: Callable[..., str], tmp_path: Path, root: Path) -> Callable[[], str]:
    env = (f"env -u NO_COLOR TERM=xterm-256color HOME={tmp_path} ADE_DAEMON=off "
           f"ADE_RUNTIME_DIR={tmp_path / 'run'} ADE_CONFIG_DIR={tmp_path / 'cfg'} "
           f"PATH={ADE.parent}:/usr/bin:/bin")  # fmt: skip
    tmux("new-session", "-d", "-x", "110", "-y", "30", "-s", "sh", "-c", str(root),
         f"{env} bash --norc --noprofile")  # fmt: skip
    return lambda: tmux("capture-pane", "-p", "-t", "sh")


def _type(tmux: Callable[..., str], line: str, enter: bool = True) -> None:
    tmux("send-keys", "-t", "sh", "-l", line)
    if enter:
        tmux("send-keys", "-t", "sh", "Enter")


def _palette_lines(screen: str) -> list[str]:
    """The rows the palette paints: from its query box's top border to its footer."""
    rows = screen.splitlines()
    top = next(i for i, r in enumerate(rows) if "kind: everything" in r)
    bottom = next(i for i, r in enumerate(rows) if "esc close" in r)
    return rows[top : bottom + 1]


@needs_tmux
def test_height_draws_under_the_prompt_and_prints_to_stdout(
    commands_project: Path, tmp_path: Path, tmux: Callable[..., str]
) -> None:
    capture = _shell(tmux, tmp_path, commands_project)
    _type(tmux, "printf 'line-above-%s\\n' 1 2 3 4 5 6")
    _type(
        tmux,
        'x=$(ade palette --print-command --height 9 --no-watch --query exit:2); echo "rc=$? x=$x"',
    )
    screen = wait_for(capture, lambda s: "$ make test" in s and "esc close" in s)
    assert "line-above-6" in screen  # no alternate screen: the shell's lines stay
    rows = screen.splitlines()
    assert rows.index("line-above-6") < rows.index(_palette_lines(screen)[0])
    assert len(_palette_lines(screen)) <= 9
    tmux("send-keys", "-t", "sh", "Enter")
    screen = wait_for(capture, lambda s: exit_row(s) is not None)
    assert exit_row(screen) == "rc=0 x=make test"
    assert "line-above-1" in screen


@needs_tmux
def test_height_pane_matches_its_golden(
    commands_project: Path, tmp_path: Path, tmux: Callable[..., str]
) -> None:
    """The inline palette as the terminal shows it, compared with
    ``snapshots/inline/height_9.txt`` (trailing spaces dropped). A fixed prompt (``PS1``) and
    ``ADE_NOW`` (the demo's clock: the recording's ages) keep it the same on every run.
    Regenerate with ``ADE_UPDATE_GOLDENS=1 pytest …::test_height_pane_matches_its_golden``."""
    capture = _shell(tmux, tmp_path, commands_project)
    _type(tmux, "PS1='$ '; clear")
    wait_for(capture, lambda s: s.strip() == "$")
    _type(tmux, "printf 'line-above-%s\\n' 1 2 3")
    # Typed before the prompt is back, the next line is echoed by the terminal ahead of it
    # (a loaded machine): the golden would lose its "$ ".
    wait_for(capture, lambda s: s.rstrip().endswith("line-above-3\n$"))
    now = DEMO_NOW.isoformat().replace("+00:00", "Z")
    palette = f"ADE_NOW={now} ade palette --print-command --height 9 --no-watch --query exit:2"
    _type(tmux, f'x=$({palette}); echo "rc=$?"')
    # Painted in steps (rows, the count, the status line's doc count, a catch-up that may still be
    # pending as it opens): wait for the settled screen.
    screen = wait_for(capture, lambda s: "$ make test" in s and s.rstrip().endswith(" docs"))
    assert_golden("inline", "height_9", screen)


def _bash_binding() -> str:
    """The bash key binding docs/palette.md gives, as one line to type."""
    block = re.search(r"```bash\n# ~/.bashrc\n(.*?)```", DOCS.read_text(), re.S)
    assert block is not None, "docs/palette.md lost its bash key binding"
    return "; ".join(line.strip() for line in block.group(1).splitlines()).replace("{;", "{")


@needs_tmux
def test_the_documented_bash_binding_puts_a_command_on_the_command_line(
    commands_project: Path, tmp_path: Path, tmux: Callable[..., str]
) -> None:
    capture = _shell(tmux, tmp_path, commands_project)
    _type(tmux, _bash_binding())
    _type(tmux, "echo ran: ", enter=False)
    tmux("send-keys", "-t", "sh", "M-a")
    wait_for(capture, lambda s: "kind: everything" in s and "esc close" in s)
    _type(tmux, "took:1m", enter=False)
    wait_for(capture, lambda s: "$ ./deploy.sh staging" in s)
    tmux("send-keys", "-t", "sh", "Enter")
    screen = wait_for(capture, lambda s: "echo ran: ./deploy.sh staging" in s)
    assert "esc close" not in screen  # the palette is gone, the line holds the command
    tmux("send-keys", "-t", "sh", "Enter")
    wait_for(capture, lambda s: "ran: ./deploy.sh staging" in s.splitlines())


def test_print_command_quotes_a_file_path_and_keeps_other_links() -> None:
    from engine.links.deeplink import build_link
    from tui.shell_line import command_line_form

    link = build_link("file", "docs/run book.md", project_id="p", line=7, lane="primary")
    assert command_line_form(PaletteRow(key="f", kind="file", title="x", deep_link=link)) == (
        "'docs/run book.md'"
    )
    pr = build_link("pr", "41", project_id="p")
    assert command_line_form(PaletteRow(key="p", kind="pr", title="#41", deep_link=pr)) == pr
