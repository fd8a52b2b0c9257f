"""The ``exit:``, ``cwd:`` and ``took:`` filters as SQL over the shell-command documents.

Only a shell command's document (``terminal:<sid>@<offset>!cmd``, written from the OSC 133
sidecar of ``ade term``) has an ``exit_code``; the folder and duration are set when its shell
said them. A filter on a column leaves out every document without it.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from typing import Any

import msgspec


class CommandFilter(msgspec.Struct, frozen=True):
    """What the command filters of one query allow (docs/terminal.md); empty fields allow anything."""

    exit_codes: tuple[int, ...] = ()
    """``exit:1,2``: one of these statuses (with ``exit_nonzero``, either)."""
    exit_nonzero: bool = False
    """``exit:fail``: any status but 0."""
    folders: tuple[str, ...] = ()
    """``cwd:/abs/path``: that folder or one below it."""
    folder_names: tuple[str, ...] = ()
    """``cwd:src`` or ``cwd:app/src``: a folder whose path ends in it, or one below such a folder."""
    took_min_ms: int | None = None
    """``took:5s`` / ``took:>5s``: ran at least this long."""
    took_max_ms: int | None = None
    """``took:<5s``: ran less than this (``took:1s..5s`` sets both)."""

    @property
    def constrains_exit(self) -> bool:
        return bool(self.exit_codes) or self.exit_nonzero


def command_sql(f: CommandFilter) -> tuple[str, list[Any]]:
    """``AND …`` clauses and parameters for ``f`` over ``docs d``."""
    sql = ""  # each clause needs its column: documents without it are left out
    params: list[Any] = []
    if f.constrains_exit:
        either = []
        if f.exit_codes:
            either.append(f"d.exit_code IN ({','.join('?' * len(f.exit_codes))})")
            params += list(f.exit_codes)
        if f.exit_nonzero:
            either.append("d.exit_code != 0")
        sql += f" AND ({' OR '.join(either)})"
    places = []
    # instr/substr, not LIKE: paths are case-sensitive, LIKE is not (and needs escaping).
    for folder in f.folders:
        below = folder.rstrip("/") + "/"
        places.append("d.cwd = ? OR substr(d.cwd, 1, ?) = ?")
        params += [folder, len(below), below]
    for name in f.folder_names:
        places.append("substr(d.cwd, ?) = ? OR instr(d.cwd, ?) > 0")
        params += [-len(name) - 1, "/" + name, "/" + name + "/"]
    if places:
        sql += " AND (" + " OR ".join(places) + ")"
    if f.took_min_ms is not None:
        sql += " AND d.took_ms >= ?"
        params.append(f.took_min_ms)
    if f.took_max_ms is not None:
        sql += " AND d.took_ms < ?"
        params.append(f.took_max_ms)
    return sql, params
