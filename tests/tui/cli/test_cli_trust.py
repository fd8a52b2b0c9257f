"""The command line's small promises: quiet broken pipes, one-line argument
errors with a hint, help for every flag, status times, page spans, `ade open` of a file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import CLEAN_ENV, DEMO_NOW, run_main, search_argv

from engine.links.deeplink import build_link

pytestmark = pytest.mark.usefixtures("cli_path")


def test_a_reader_that_went_away_is_not_an_error(indexed_demo: Path) -> None:
    """`ade search … | head`: the pipe's reader is gone before ade writes; rg exits quietly."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader left: every write to the pipe fails with EPIPE
    env = {k: v for k, v in os.environ.items() if k not in CLEAN_ENV} | {"ADE_NOW": DEMO_NOW}
    try:
        done = subprocess.run(
            [sys.executable, "-c", "from tui.cli import main_entry; main_entry()",
             *search_argv(indexed_demo, "timeout")],
            stdout=write_end, stderr=subprocess.PIPE, text=True, env=env, timeout=60, check=False,
        )  # fmt: skip
    finally:
        os.close(write_end)
    assert done.stderr == ""
    assert done.returncode == 0


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["--limit", "abc"], "ade search: argument --limit: invalid int value: 'abc'"
                             " (try `ade search --help`)"),
        (["--json", "--text", "x"], "ade search: argument --text: not allowed with argument"
                                    " --json (try `ade search --help`)"),
        (["-flaky"], "ade search: unrecognized arguments: -flaky (a query term starting with -"
                     " goes after --, e.g. `ade search -- -flaky`)"),
    ],
)  # fmt: skip
def test_argument_errors_are_one_line_with_a_hint(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str], flags: list[str], expected: str
) -> None:
    run = run_main(capsys, search_argv(indexed_demo, *flags))
    assert (run.code, run.out, run.err) == (2, "", expected + "\n")


def test_text_and_json_have_help(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_main(capsys, ["search", "--help"])
    assert run.code == 0
    flat = " ".join(run.out.split())
    assert "--text readable blocks, one per hit" in flat
    assert "--json the stable JSON wire form" in flat


def test_status_shows_the_last_ingest_and_backfill_in_a_later_run(
    demo_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first run ingests; a second process (nothing to ingest) still reports both times."""
    assert run_main(capsys, search_argv(demo_copy, "timeout")).code == 0
    run = run_main(capsys, search_argv(demo_copy, "--status", "--json"))
    status = json.loads(run.out)
    assert isinstance(status["lastIngestAt"], int)
    assert isinstance(status["backfillCompletedAt"], int)
    text = run_main(capsys, search_argv(demo_copy, "--status")).out
    assert "last ingest:  never" not in text
    assert "backfill:     never" not in text
    assert "last ingest:  20" in text
    assert "backfill:     20" in text


def test_an_index_never_ingested_says_never(
    demo_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import msgspec

    from engine.types import IndexStatus, from_json
    from tui.search_format import format_status_text

    status = from_json(
        run_main(capsys, search_argv(demo_copy, "--status", "--json")).out, IndexStatus
    )
    blank = msgspec.structs.replace(status, last_ingest_at=None, backfill_completed_at=None)
    text = format_status_text(blank)
    assert "last ingest:  never" in text
    assert "backfill:     never" in text


def test_a_later_page_names_its_span(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = run_main(capsys, search_argv(indexed_demo, "timeout", "--limit", "2"))
    footer, cursor_line = first.out.splitlines()[-2:]
    total = footer.split(" of ")[1]
    assert footer == f"2 of {total}"
    cursor = cursor_line.removeprefix("next page: --cursor ")
    second = run_main(
        capsys, search_argv(indexed_demo, "timeout", "--limit", "2", "--cursor", cursor)
    )
    assert second.out.splitlines()[-2] == f"3–4 of {total}"
    cursor = second.out.splitlines()[-1].removeprefix("next page: --cursor ")
    third = run_main(
        capsys, search_argv(indexed_demo, "timeout", "--limit", "2", "--cursor", cursor)
    )
    assert third.out.splitlines()[-2] == f"5–6 of {total}"


def test_open_of_a_file_names_it_once(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = build_link("file", "payments_api/config.py", line=12)
    run = run_main(capsys, ["open", "--project", str(indexed_demo), "--context", "1", link])
    assert run.code == 0
    assert run.out.count("payments_api/config.py") == 1
    assert run.out.splitlines() == [
        "file  payments_api/config.py",
        "",
        "  11      gateway_url: str",
        "> 12      connect_timeout: float = 3.05",
        "  13      read_timeout: float = 10.0",
    ]


def test_zero_results_suggest_the_nearest_word(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --exact: without it the corrected spelling answers (test_relaxed_cli.py)
    run = run_main(capsys, search_argv(indexed_demo, "--exact", "timeuot"))
    assert run.code == 1
    assert run.err == "warning: did you mean timeout?\n"
    assert run.out == "0 of 0 results\n"
