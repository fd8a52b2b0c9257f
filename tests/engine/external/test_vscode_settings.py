"""Roo Code's tasks kept where its ``roo-cline.customStoragePath`` setting says
(``src/utils/storage.ts``): the folder is read from the user's ``settings.json`` (JSON with
comments and trailing commas) of each VS Code product, the tasks found there as in the default
storage, and a settings file that cannot be read is counted once, never fatal."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from engine.external.heads import HeadCache
from engine.external.registry import agent_format
from engine.external.vscode_settings import MAX_SETTINGS, loads_jsonc
from engine.project.model import Lane
from engine.project.safe_io import JsonRejected
from engine.project.tally import WarningTally
from tests.engine.external.agent_homes import install_home
from tests.engine.external.fixture_reads import expect

STORAGE = Path("User") / "globalStorage" / "rooveterinaryinc.roo-cline"


def _settings(custom: Path) -> str:
    """A user's settings as VS Code writes and people edit them: comments, trailing commas."""
    return (
        "// Place your settings in this file\n{\n"
        '  "workbench.colorTheme": "Default Dark+", /* a block\n comment */\n'
        '  "http.proxy": "http://proxy.example:8080/*not a comment*/",\n'
        f'  "roo-cline.customStoragePath": {json.dumps(str(custom))}, // moved\n'
        '  "files.exclude": {"**/.git": true,},\n}\n'
    )


def _roo_moved(tmp: Path) -> tuple[dict[str, str], list[Lane], Path]:
    """Roo Code's fixture with its tasks moved to a custom folder named by the settings."""
    project, lane = tmp / "work" / "demo", tmp / "work" / "fix"
    project.mkdir(parents=True)
    lane.mkdir(parents=True)
    home = install_home("roo", tmp / "appdata", project, lane)
    custom = tmp / "roo-tasks"
    custom.mkdir()
    shutil.move(home / "Code" / STORAGE / "tasks", custom / "tasks")
    (home / "Code" / "User" / "settings.json").write_text(_settings(custom))
    env = {"HOME": str(tmp / "user"), "VSCODE_APPDATA": str(home)}
    lanes = [Lane("primary", "main", project, "main", True), Lane("fix", "fix", lane, "fix", False)]
    return env, lanes, custom


def test_jsonc_comments_and_trailing_commas_go_strings_stay() -> None:
    doc = loads_jsonc(_settings(Path("/x/y")))
    assert doc["roo-cline.customStoragePath"] == "/x/y"
    assert doc["http.proxy"] == "http://proxy.example:8080/*not a comment*/"
    assert doc["files.exclude"] == {"**/.git": True}
    assert loads_jsonc('{"a": "\\"//",} // end') == {"a": '"//'}
    with pytest.raises(JsonRejected):
        loads_jsonc('{"a": 1, /* never closed')
    # a comment holding a brace is no end: the comma before it stays
    assert loads_jsonc('{"a": 1, // }\n "b": 2}') == {"a": 1, "b": 2}
    assert loads_jsonc('{"a": [1, /* ] */ 2,],}') == {"a": [1, 2]}


def test_many_comments_after_a_comma_parse_in_one_pass() -> None:
    # no backtracking over ways to group the comments (each is one token)
    text = '{"a": 1, ' + "/* c */ " * 20_000 + '"b": 2}'
    assert loads_jsonc(text) == {"a": 1, "b": 2}
    with pytest.raises(JsonRejected):  # and no trailing comma either: refused at once
        loads_jsonc('{"a": 1, ' + "/* c */ " * 20_000 + "x}")


def test_roo_tasks_in_the_custom_storage_are_found_as_in_the_default(tmp_path: Path) -> None:
    env, lanes, custom = _roo_moved(tmp_path)
    fmt = agent_format("roo")
    assert custom / "tasks" in fmt.session_folders(env)  # --status names it
    tally = WarningTally()
    found = fmt.sessions(lanes, tally, env, HeadCache(None))
    want = {s["id"] for s in expect("roo")["sessions"]}
    assert {m.id for m in found} == want
    assert all(custom in (m.transcript_path or Path()).parents for m in found)
    assert tally.reasons("roo") == expect("roo")["listing_skips"]
    meta = found[0]
    assert fmt.owns(meta.transcript_path or Path(), env)  # opened, followed
    assert fmt.recorded_cwd(meta) is not None


def test_a_profiles_own_settings_move_the_tasks_too(tmp_path: Path) -> None:
    # userDataProfile.ts: a profile's settings are User/profiles/<id>/settings.json; the
    # extension's global storage stays the default profile's
    env, lanes, custom = _roo_moved(tmp_path)
    user = Path(env["VSCODE_APPDATA"]) / "Code" / "User"
    (user / "settings.json").unlink()
    profile = user / "profiles" / "-5c1e2f3a"
    profile.mkdir(parents=True)
    (profile / "settings.json").write_text(_settings(custom))
    found = agent_format("roo").sessions(lanes, WarningTally(), env, HeadCache(None))
    assert {m.id for m in found} == {s["id"] for s in expect("roo")["sessions"]}
    assert custom / "tasks" in agent_format("roo").session_folders(env)


def test_a_relative_or_empty_setting_names_no_folder(tmp_path: Path) -> None:
    env, _, _ = _roo_moved(tmp_path)
    settings = Path(env["VSCODE_APPDATA"]) / "Code" / "User" / "settings.json"
    before = agent_format("roo").session_folders(env)
    for value in ('"roo-tasks"', '""', "7", "null"):
        settings.write_text(f'{{"roo-cline.customStoragePath": {value}}}')
        assert len(agent_format("roo").session_folders(env)) == len(before) - 1


@pytest.mark.parametrize("what", ["not jsonc", "too long", "a fifo"])
def test_unreadable_settings_are_counted_once_and_the_default_still_read(
    what: str, tmp_path: Path
) -> None:
    env, lanes, _ = _roo_moved(tmp_path)
    settings = Path(env["VSCODE_APPDATA"]) / "Code - Insiders" / "User" / "settings.json"
    settings.parent.mkdir(parents=True)
    if what == "not jsonc":
        settings.write_text('{"roo-cline.customStoragePath": ')
    elif what == "too long":
        settings.write_text('{"a": "' + "x" * MAX_SETTINGS + '"}')
    else:
        os.mkfifo(settings)  # never waited on
    fmt = agent_format("roo")
    tally = WarningTally()
    for _ in range(2):  # listed again: still one
        found = fmt.sessions(lanes, tally, env, HeadCache(None))
    assert {m.id for m in found} == {s["id"] for s in expect("roo")["sessions"]}
    assert tally.reasons("roo").get("unreadable") == 1


def test_a_changed_setting_is_read_again(tmp_path: Path) -> None:
    env, _, custom = _roo_moved(tmp_path)
    settings = Path(env["VSCODE_APPDATA"]) / "Code" / "User" / "settings.json"
    assert custom / "tasks" in agent_format("roo").session_folders(env)
    other = tmp_path / "elsewhere"
    settings.write_text(json.dumps({"roo-cline.customStoragePath": str(other), "pad": "x" * 9}))
    folders = agent_format("roo").session_folders(env)
    assert other / "tasks" in folders
    assert custom / "tasks" not in folders


def test_cline_has_no_such_setting(tmp_path: Path) -> None:
    env, _, custom = _roo_moved(tmp_path)
    settings = Path(env["VSCODE_APPDATA"]) / "Code" / "User" / "settings.json"
    settings.write_text(json.dumps({"cline.customStoragePath": str(custom)}))
    assert all(custom not in f.parents for f in agent_format("cline").session_folders(env))
