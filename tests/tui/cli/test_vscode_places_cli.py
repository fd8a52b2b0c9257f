"""The VS Code agents read where VS Code and the extensions really put their tasks, on both
paths: a portable install's ``$VSCODE_PORTABLE/user-data`` (``userDataPath.ts``) and Roo Code's
``roo-cline.customStoragePath`` from the user's ``settings.json`` (``src/utils/storage.ts``);
``--status`` names those folders, and settings it cannot read are counted, not fatal."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import found_and_opened, never_found, run_main, search_argv

pytestmark = pytest.mark.usefixtures("cli_path")

ROO = Path("User") / "globalStorage" / "rooveterinaryinc.roo-cline"
CLINE = Path("User") / "globalStorage" / "saoudrizwan.claude-dev"


def _status(capsys: pytest.CaptureFixture[str], root: Path, name: str) -> dict[str, object]:
    run = run_main(capsys, search_argv(root, "--status", "--json"))
    assert run.code == 0, run.err
    agent: dict[str, object] = next(a for a in json.loads(run.out)["agents"] if a["name"] == name)
    return agent


def _roo_tasks_moved(home: Path, tmp_path: Path) -> Path:
    """Roo Code's fixture tasks moved out of its default storage into a folder of their own (the
    folder a ``roo-cline.customStoragePath`` names), returned."""
    custom = tmp_path / "roo-storage"
    custom.mkdir()
    shutil.move(home / "Code" / ROO / "tasks", custom / "tasks")
    return custom


def test_a_cline_task_of_a_portable_install_is_found_opened_and_listed(
    demo_copy: Path,
    agent_home: Callable[[str], Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home = agent_home("cline")
    portable = tmp_path / "VSCode-linux-x64" / "data"
    portable.mkdir(parents=True)
    shutil.move(home / "Code", portable / "user-data")  # a portable VS Code's own data
    monkeypatch.setenv("VSCODE_PORTABLE", str(portable))
    said = "user: why is the ocelot build slow"
    found_and_opened(capsys, demo_copy, "cline", ["ocelot", "build"], said)
    status = _status(capsys, demo_copy, "cline")
    folders = status["folders"]
    assert isinstance(folders, list)
    assert folders[0] == str(portable / "user-data" / CLINE / "tasks")  # first, as VS Code
    assert str(home / "Code - Insiders" / CLINE / "tasks") in folders
    assert status["tied"] == 2


def test_roo_tasks_in_its_custom_storage_are_found_opened_and_listed(
    demo_copy: Path,
    agent_home: Callable[[str], Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = agent_home("roo")
    custom = _roo_tasks_moved(home, tmp_path)
    (home / "Code" / "User" / "settings.json").write_text(
        "{\n  // where Roo keeps its tasks\n"
        f'  "roo-cline.customStoragePath": {json.dumps(str(custom))},\n}}\n'
    )
    broken = home / "VSCodium" / "User" / "settings.json"
    broken.parent.mkdir(parents=True)
    broken.write_text('{"roo-cline.customStoragePath": "/nowhere"')  # cut short
    said = "user: add a retry to the quokka client"
    found_and_opened(capsys, demo_copy, "roo", ["quokka", "retry"], said)
    status = _status(capsys, demo_copy, "roo")
    assert str(custom / "tasks") in status["folders"]  # type: ignore[operator]
    assert status["tied"] == 1
    # the moved task naming no folder is counted as in the default storage, the broken settings once
    assert status["skipped"] == {"unknown type": 1, "no cwd": 1, "unreadable": 1}


def test_a_task_roo_starts_and_a_message_it_adds_in_its_custom_storage_are_found_at_once(
    demo_copy: Path,
    agent_home: Callable[[str], Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = agent_home("roo")
    custom = _roo_tasks_moved(home, tmp_path)
    (home / "Code" / "User" / "settings.json").write_text(
        json.dumps({"roo-cline.customStoragePath": str(custom)})
    )
    items = found_and_opened(capsys, demo_copy, "roo", ["quokka", "retry"], "quokka")
    never_found(capsys, demo_copy, "pangolin", "armadillo")  # nothing new: warm from here on
    tasks = custom.glob("tasks/*/ui_messages.json")
    shown = next(path for path in tasks if "quokka" in path.read_text())  # the project's task
    messages = json.loads(shown.read_text())
    messages.append({"ts": 1780315299000, "type": "say", "say": "user_feedback",
                     "text": "also retry the pangolin upload"})  # fmt: skip
    shown.write_text(json.dumps(messages))  # Roo Code rewrites the file whole
    run = run_main(capsys, search_argv(demo_copy, "tool:roo", "pangolin", "--json"))
    assert run.code == 0, run.err
    assert [item["sessionId"] for item in json.loads(run.out)["items"]] == [items[0]["sessionId"]]
    task = custom / "tasks" / "5d2c8e1a-0b3f-4a7c-9e6d-1f2a3b4c5d6e"  # a task started since
    task.mkdir()
    (task / "ui_messages.json").write_text(json.dumps(
        [{"ts": 1780319000000, "type": "say", "say": "text", "text": "find the armadillo leak"}]
    ))  # fmt: skip
    (task / "history_item.json").write_text(json.dumps(
        {"id": task.name, "ts": 1780319000000, "task": "find the armadillo leak",
         "workspace": str(demo_copy)}
    ))  # fmt: skip
    found_and_opened(capsys, demo_copy, "roo", ["armadillo"], "user: find the armadillo leak")
