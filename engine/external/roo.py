"""Roo Code's tasks in VS Code: ``<user data>/User/globalStorage/rooveterinaryinc.roo-cline/``
(``engine.external.vscode_tasks`` reads the task folders; this says which folder each ran in).

From RooCodeInc/Roo-Code: ``src/shared/globalFileNames.ts`` (``api_conversation_history.json``,
``ui_messages.json``, ``task_metadata.json``, ``history_item.json``, ``_index.json``),
``src/core/task-persistence/TaskHistoryStore.ts`` (each task's ``HistoryItem`` in
``tasks/<id>/history_item.json``, the list cached in ``tasks/_index.json`` as ``{version,
updatedAt, entries}``; migrated from VS Code's global state, 2026-02),
``packages/types/src/history.ts`` (``HistoryItem``: ``id``, ``ts``, ``task``, ``workspace`` —
the task's folder —, ``parentTaskId``), ``src/core/task-persistence/taskMetadata.ts`` (sets
``workspace`` from the task's cwd), ``packages/types/src/message.ts`` (``clineSays``,
``clineAsks``) and ``src/core/task/Task.ts`` (``startTask`` shows the task as the first
``say: "text"``). A task whose item names no ``workspace`` (or has no item yet) is counted
``no cwd``. Tasks kept elsewhere by the ``roo-cline.customStoragePath`` setting
(``src/utils/storage.ts:14-58``: ``<that folder>/tasks/<id>/``) are read there too, the folder
taken from each product's ``User/settings.json`` (``engine.external.vscode_settings``). No resume
by id: a task is reopened from the extension's history.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from engine.external.vscode_tasks import TaskFolderFormat, read_json, title_of
from engine.project.model import SessionMeta
from engine.project.tally import WarningTally

ITEM = "history_item.json"
INDEX = "_index.json"


class RooFormat(TaskFolderFormat):
    """Roo Code: each task's history item names its folder."""

    name: ClassVar[str] = "roo"
    no_resume: ClassVar[str] = (
        "Roo Code cannot resume a task by id from a shell: reopen it from its history in VS Code"
    )

    def task_items(
        self, storage: Path, tally: WarningTally
    ) -> dict[str, tuple[str | None, str, int]]:
        del tally  # a task without its folder is counted by the listing
        tasks = storage / "tasks"
        index = read_json(tasks / INDEX)
        entries = index.get("entries") if isinstance(index, dict) else None
        known = {
            e["id"]: e
            for e in entries or []
            if isinstance(e, dict) and isinstance(e.get("id"), str)
        }
        items: dict[str, tuple[str | None, str, int]] = {}
        try:
            listed = sorted(p.name for p in tasks.iterdir() if p.is_dir())
        except OSError:
            return items
        for ident in listed:
            item = known.get(ident)
            if item is None or not item.get("workspace"):
                read = read_json(tasks / ident / ITEM)
                item = read if isinstance(read, dict) else item
            items[ident] = _item(item)
        return items

    def recorded_cwd(self, meta: SessionMeta) -> Path | None:
        path = meta.transcript_path
        if path is None:
            return None
        read = read_json(path.parent / ITEM)
        folder = _item(read if isinstance(read, dict) else None)[0]
        return Path(folder) if folder else None


def _item(item: dict[str, Any] | None) -> tuple[str | None, str, int]:
    if item is None:
        return None, "", 0
    folder, ts = item.get("workspace"), item.get("ts")
    return (
        folder if isinstance(folder, str) and folder else None,
        title_of(item.get("task")),
        ts if isinstance(ts, int) else 0,
    )


FORMAT = RooFormat()
