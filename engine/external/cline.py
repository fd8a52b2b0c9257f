"""Cline's tasks in VS Code: ``<user data>/User/globalStorage/saoudrizwan.claude-dev/``
(``engine.external.vscode_tasks`` reads the task folders; this says which folder each ran in).

From cline/cline: ``apps/vscode/src/core/storage/disk.ts`` (``GlobalFileNames``: ``tasks/<id>/``
holds ``api_conversation_history.json``, ``ui_messages.json``, ``task_metadata.json``; the
metadata names files, models and the environment, no folder), the task history file
``state/taskHistory.json`` (moved there from VS Code's global state by "Move task history to
file storage", 2025-08; ``apps/vscode/src/sdk/legacy-state-reader.ts`` reads it still) whose
``HistoryItem`` (``apps/vscode/src/shared/HistoryItem.ts``: ``id``, ``ts``, ``task``,
``cwdOnTaskInitialization`` since 2025-05) names the task's folder, and the shown messages'
kinds (``apps/vscode/src/shared/ExtensionMessage.ts``: ``ClineMessage``, ``ClineSay``,
``ClineAsk``, ``ClineSayTool``). A task without ``cwdOnTaskInitialization`` (older than the
field) or missing from the history names no folder: counted ``no cwd``. Tasks of Cline's newer
SDK storage (``~/.cline/data``) are not read. Cline has no setting that moves its tasks (unlike
Roo Code's ``customStoragePath``): ``apps/vscode/package.json:338-341`` contributes no settings,
and ``apps/vscode/src/core/storage/disk.ts:52-53,191-192`` puts every task under the storage VS
Code gives it (``context.globalStorageUri``, ``apps/vscode/src/extension.ts:594``). No resume by
id: a task is reopened from the extension's history.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from engine.external.vscode_tasks import TaskFolderFormat, read_json, title_of
from engine.project.model import SessionMeta
from engine.project.tally import WarningTally

HISTORY = Path("state") / "taskHistory.json"


class ClineFormat(TaskFolderFormat):
    """Cline: the task history names each task's folder."""

    name: ClassVar[str] = "cline"
    no_resume: ClassVar[str] = (
        "Cline cannot resume a task by id from a shell: reopen it from its task history in VS Code"
    )

    def task_items(
        self, storage: Path, tally: WarningTally
    ) -> dict[str, tuple[str | None, str, int]]:
        del tally  # a task missing from the history is counted by the listing
        items: dict[str, tuple[str | None, str, int]] = {}
        history = read_json(storage / HISTORY)
        for item in history if isinstance(history, list) else []:
            ident = item.get("id") if isinstance(item, dict) else None
            if not isinstance(ident, str) or not ident:
                continue
            folder = item.get("cwdOnTaskInitialization")
            ts = item.get("ts")
            items[ident] = (
                folder if isinstance(folder, str) and folder else None,
                title_of(item.get("task")),
                ts if isinstance(ts, int) else 0,
            )
        try:
            listed = [p.name for p in (storage / "tasks").iterdir() if p.is_dir()]
        except OSError:
            listed = []
        for ident in listed:
            items.setdefault(ident, (None, "", 0))
        return items

    def recorded_cwd(self, meta: SessionMeta) -> Path | None:
        path = meta.transcript_path
        if path is None:
            return None
        folder = self.task_items(path.parents[2], WarningTally()).get(path.parent.name)
        return Path(folder[0]) if folder and folder[0] else None


FORMAT = ClineFormat()
