"""The file source sees the tree git sees: every untracked file, submodules, and
file names holding any byte — a newline (main reported a hit for another path) or bytes that
are not UTF-8 (main's link could not be opened)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from cli_helpers import run_main

from engine.delegates.file_passes import search_lane_files
from engine.embedded import EmbeddedClient
from engine.types import SearchQueryArgs

ODD = os.fsdecode(b"caf\xe9 \xff.txt")


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@e",
                    "-c", "protocol.file.allow=always", *args],
                   check=True, capture_output=True)  # fmt: skip


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("tree")
    sub = base / "sub"
    sub.mkdir()
    (sub / "deep.txt").write_text("a quokka in the submodule\n")
    _git(sub, "init", "-q", "-b", "main")
    _git(sub, "add", "-A")
    _git(sub, "commit", "-q", "-m", "sub")
    root = base / "repo"
    root.mkdir()
    (root / "two\nlines.txt").write_text("quokka on a named line\n")
    (root / "lines.txt").write_text("nothing here\n")
    (root / os.fsencode(ODD).decode("utf-8", "surrogateescape")).write_text("quokka odd name\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "submodule", "add", "-q", str(sub), "vendor/sub")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "init")
    spill = root / "spill"
    spill.mkdir()
    for n in range(5001):  # untracked, not ignored: main read the first 5,000 and said nothing
        (spill / f"f{n:05}.txt").write_text("plain\n")
    (spill / "f05000.txt").write_text("quokka past five thousand\n")
    (root / "big.log").write_text("quokka\n" * 200_000)  # untracked and over 1 MiB
    return root


def test_every_file_git_sees_is_searched_and_a_skip_is_said(tree: Path) -> None:
    found = search_lane_files(tree, ["quokka"])
    assert sorted((h.path, h.line) for h in found.lines) == sorted([
        ("two\nlines.txt", 1), (ODD, 1), ("vendor/sub/deep.txt", 1), ("spill/f05000.txt", 1),
    ])  # fmt: skip
    assert found.notes == ("files: 1 untracked file(s) over 1 MiB not searched",)


def test_an_undecodable_file_name_links_and_opens(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with EmbeddedClient.open(tree, start_worker=False) as client:
        result = client.query(SearchQueryArgs(query="quokka odd", kinds=("file",)))
    (item,) = [i for i in result.items if i.title.endswith(":1")]
    assert item.title == "caf\\xe9 \\xff.txt:1"
    assert item.deep_link.startswith("ade://file/caf%E9%20%FF.txt?line=1&col=1&")
    run = run_main(capsys, ["open", "--project", str(tree), item.deep_link])
    assert run.code == 0, run.err
    assert "quokka odd name" in run.out
    json.dumps(result.items[0].title)  # plain text on the wire


def test_a_grep_out_of_time_keeps_what_it_found_and_says_so(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.delegates import git_process

    monkeypatch.setattr(git_process, "GREP_TIMEOUT_SECONDS", 0.0)
    found = search_lane_files(tree, ["quokka"])
    assert found.cut_short  # on main: no lines at all, the untracked ones included
    assert ("spill/f05000.txt", 1) in [(h.path, h.line) for h in found.lines]
    assert any("took longer than" in note for note in found.notes)
